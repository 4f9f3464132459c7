import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { builtinEnvironments } from "../builtin.js";
import { createEnvironmentsHost } from "../host.js";
import { localSecrets } from "./local-keys.js";

const { values } = parseArgs({
  options: { port: { type: "string", default: "8788" }, host: { type: "string", default: "127.0.0.1" } },
});
const port = Number(values.port);
const bindings = await localSecrets();
const app = createEnvironmentsHost();
const server = serve({ fetch: (req) => app.fetch(req, bindings), port, hostname: values.host }, (info) => {
  for (const env of builtinEnvironments)
    console.log(`edgegym: ${env.name} at http://${values.host}:${info.port}/envs/${env.name}`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
