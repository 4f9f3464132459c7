import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { builtinEnvironments } from "../builtin.js";
import { DEFAULT_LOCAL_DB, openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { localSecrets } from "./local-keys.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8788" },
    host: { type: "string", default: "127.0.0.1" },
    db: { type: "string", default: DEFAULT_LOCAL_DB },
  },
});
const port = Number(values.port);
// Imported datasets (npm run data -- import ...) reach the environments as the binding EDGEGYM_DB.
const bindings = { ...(await localSecrets()), EDGEGYM_DB: await openLocalDb(values.db) };
const app = createEnvironmentsHost();
const server = serve({ fetch: (req) => app.fetch(req, bindings), port, hostname: values.host }, (info) => {
  for (const env of builtinEnvironments)
    console.log(`edgegym: ${env.name} at http://${values.host}:${info.port}/envs/${env.name}`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
