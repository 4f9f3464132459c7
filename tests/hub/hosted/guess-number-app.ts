import { guessNumber } from "../../../environments/examples/guess-number/index.js";
import { createEnvironmentApp } from "../../../environments/kit/app.js";

/** The entry a pushed guess-number bundle is built from: its default export is the env's app. */
export default createEnvironmentApp(guessNumber);
