import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createEnvironmentsHost } from "../../environments/host.js";

/** The Node host as the benchmark runs it: its own process (own core), secrets from the parent. */
const bindings: Record<string, string> = JSON.parse(process.env.EDGEGYM_BENCH_BINDINGS ?? "{}");
const app = createEnvironmentsHost();
const server = serve({ fetch: (req) => app.fetch(req, bindings), port: 0, hostname: "127.0.0.1" }, (info) =>
  console.log(JSON.stringify({ port: (info as AddressInfo).port })),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
