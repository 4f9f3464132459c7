import { createEnvironmentApp } from "../../../environments/kit/app.js";
import { search } from "../../../environments/search/index.js";

/** The built-in search env pushed as a user would push it: its generated world and BM25 index in the isolate. */
export default createEnvironmentApp(search);
