import cluster from "node:cluster";
import type { AddressInfo } from "node:net";
import { createEnvironmentsHost } from "../../environments/host.js";
import { listen } from "../../environments/node/listen.js";
import { trivialApp } from "./trivial-app.js";

/**
 * The Node host as the benchmark runs it: its own processes, secrets from the parent. With
 * `EDGEGYM_BENCH_WORKERS` > 1 it is a node:cluster of that many processes sharing one port, which
 * works only because sessions are stateless: any process can serve any step of any episode.
 * `EDGEGYM_BENCH_APP=trivial` serves the ceiling app instead. Prints `{ port, pids }` once every
 * process listens.
 */
const bindings: Record<string, string> = JSON.parse(process.env.EDGEGYM_BENCH_BINDINGS ?? "{}");
const workers = Number(process.env.EDGEGYM_BENCH_WORKERS ?? "1");

if (workers > 1 && cluster.isPrimary) {
  const pids: number[] = [];
  cluster.on("listening", (worker, address: AddressInfo) => {
    if (worker.process.pid !== undefined) pids.push(worker.process.pid);
    if (pids.length === workers) console.log(JSON.stringify({ port: address.port, pids }));
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on("SIGTERM", () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
    process.exit(0);
  });
} else {
  const app = process.env.EDGEGYM_BENCH_APP === "trivial" ? trivialApp : createEnvironmentsHost();
  const server = await listen(app, bindings);
  if (workers <= 1) console.log(JSON.stringify({ port: server.port, pids: [process.pid] }));
  process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
}
