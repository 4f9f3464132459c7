import cluster from "node:cluster";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { scriptArgs } from "../../shared/script-args.js";
import { builtinEnvironments } from "../builtin.js";
import { localDbPath, openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { SESSION_KEY_VAR, SIGNING_KEY_VAR } from "../kit/index.js";
import { ClusterSessionStore, serveClusterSessions } from "./cluster-sessions.js";
import { listen } from "./listen.js";
import { localSecrets } from "./local-keys.js";

/** `npm run envs -- --port N`: every built-in environment on Node at `http://host:N/envs/<name>`. */
const USAGE = `Usage: npm run envs -- [options]

Serves every built-in environment on Node at http://<host>:<port>/envs/<name>.

Options:
  --port <n>            port (default 8788)
  --host <address>      address to listen on (default 127.0.0.1)
  --db <file>           the local datasets' database (default $EDGEGYM_DATA_DB, else .edgegym/data.db)
  --max-in-flight <n>   requests each env works on at once per process before 429; 0 is no limit (default 0)
  --workers <n|auto>    processes sharing the port, auto for one per core (default auto)
  -h, --help            this text`;
const args = scriptArgs("envs", USAGE, {
  port: { type: "string", default: "8788" },
  host: { type: "string", default: "127.0.0.1" },
  db: { type: "string", default: localDbPath() },
  /** Requests each environment works on at once (per process) before answering 429 `rate_limited`; 0 is no limit. */
  "max-in-flight": { type: "string", default: "0" },
  /**
   * Processes sharing the port (node:cluster), `auto` one per core. Sessions are sealed tokens, so
   * any process serves any step of any episode.
   */
  workers: { type: "string", default: "auto" },
});
const { values } = args;
// Checked here, before any worker forks: a worker that exited on a bad flag would be started again.
const listenPort = args.number("port");
const maxInFlight = args.number("max-in-flight");
const workers = values.workers === "auto" ? availableParallelism() : Math.max(1, args.number("workers"));
const urls = (port: number) => builtinEnvironments.map((e) => `http://${values.host}:${port}/envs/${e.name}`);

if (workers > 1 && cluster.isPrimary) {
  // Secrets and migrations once, before any worker starts: every process must seal with the same key,
  // and two processes must not migrate the database at once. Workers start one after another for
  // the same reason (each opens the database).
  const secrets = await localSecrets();
  (await openLocalDb(values.db)).close();
  const env = { [SESSION_KEY_VAR]: secrets[SESSION_KEY_VAR], [SIGNING_KEY_VAR]: secrets[SIGNING_KEY_VAR] };
  // MCP sessions are the one state: the primary keeps them for every worker.
  serveClusterSessions(cluster);
  let stopping = false;
  let port = 0;
  for (let i = 0; i < workers; i++) {
    const [address] = (await once(cluster.fork(env), "listening")) as [AddressInfo];
    port = address.port;
  }
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    console.error(`edgegym: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    cluster.fork(env);
  });
  console.log(`edgegym: local datasets from ${values.db}; ${workers} processes`);
  for (const url of urls(port)) console.log(`edgegym: ${url}`);
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} else {
  const db = await openLocalDb(values.db);
  const bindings = { ...(await localSecrets()), EDGEGYM_DB: db };
  const host = createEnvironmentsHost(builtinEnvironments, {
    ...(maxInFlight > 0 ? { maxInFlight } : {}),
    ...(cluster.isWorker ? { mcp: { store: new ClusterSessionStore() } } : {}),
  });
  const server = await listen(host, bindings, listenPort, values.host);
  if (cluster.isPrimary) {
    console.log(`edgegym: local datasets from ${values.db}`);
    for (const url of urls(server.port)) console.log(`edgegym: ${url}`);
  }
  const stop = () => server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
