import { createEnvironmentApp } from "edgegym/kit";
import { myEnv } from "./index.js";

/**
 * The entry `edgegym push` bundles: a fetch handler serving the env's base URL (`/v1/...`, `/mcp`,
 * OpenEnv's routes). The hub gives it its signing key and session secret as bindings at run time;
 * they are never in the bundle.
 */
export default createEnvironmentApp(myEnv);
