import { createEnvironmentsHost } from "./host.js";

/** The Workers entry: `wrangler dev` and `wrangler deploy` serve the built-in environments from here. */
export default createEnvironmentsHost();
