import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { openLocalDb } from "../../environments/data/local-db.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { search } from "../../environments/search/index.js";

/**
 * The search environment on Node as `npm run envs` serves it (FTS5 in a local SQLite file), in its
 * own process so the load generator has the other core. Secrets and the db path come from the parent.
 */
const secrets: Record<string, string> = JSON.parse(process.env.EDGEGYM_BENCH_BINDINGS ?? "{}");
const db = await openLocalDb(process.env.EDGEGYM_BENCH_DB ?? ":memory:");
const bindings = { ...secrets, EDGEGYM_DB: db };
const app = createEnvironmentsHost([search]);
const server = serve({ fetch: (req) => app.fetch(req, bindings), port: 0, hostname: "127.0.0.1" }, (info) =>
  console.log(JSON.stringify({ port: (info as AddressInfo).port })),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
