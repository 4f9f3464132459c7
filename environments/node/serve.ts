import { parseArgs } from "node:util";
import { builtinEnvironments } from "../builtin.js";
import { DEFAULT_LOCAL_DB, openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { listen } from "./listen.js";
import { localSecrets } from "./local-keys.js";

/** `npm run envs -- --port N`: every built-in environment on Node at `http://host:N/envs/<name>`. */
const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8788" },
    host: { type: "string", default: "127.0.0.1" },
    db: { type: "string", default: DEFAULT_LOCAL_DB },
    /** Requests each environment works on at once before answering 429 `rate_limited`; 0 is no limit. */
    "max-in-flight": { type: "string", default: "0" },
  },
});
const db = await openLocalDb(values.db);
const bindings = { ...(await localSecrets()), EDGEGYM_DB: db };
const maxInFlight = Number(values["max-in-flight"]);
const host = createEnvironmentsHost(builtinEnvironments, maxInFlight > 0 ? { maxInFlight } : {});
const server = await listen(host, bindings, Number(values.port), values.host);
console.log(`edgegym: local datasets from ${values.db}`);
for (const env of builtinEnvironments) console.log(`edgegym: ${env.name} at ${server.url}/envs/${env.name}`);
const stop = () => server.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
