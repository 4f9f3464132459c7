import { calculator } from "../../environments/calculator/index.js";
import { createEnvironmentApp } from "../../environments/kit/app.js";

/** The procedural calculator as a pushed bundle's entry, for `npm run bench:hub`'s hosted column. */
export default createEnvironmentApp(calculator);
