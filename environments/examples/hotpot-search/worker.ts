import { createEnvironmentApp } from "edgegym/kit";
import { hotpotSearch } from "./index.js";

/** The entry `edgegym push environments/examples/hotpot-search` bundles. */
export default createEnvironmentApp(hotpotSearch);
