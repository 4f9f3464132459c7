import { createHubApp } from "./app.js";

/** The Workers entry (wrangler.toml `main`): the hub API plus the built-in environments at `/envs/<name>`. */
export default createHubApp();
