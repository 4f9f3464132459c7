/**
 * `npm run bench:envs`: calculator episodes at concurrency 1, 16, 64 and 256 against the Node host
 * (one process), the Node host as a node:cluster of one process per core (stateless sessions make
 * that a one-liner), the environments' worker on the workerd binary (one process, and one per core
 * sharing a listening socket), printing JSON. The load
 * generator runs in this process, so on a 2-core machine server and client share the CPU, as the
 * issue's targets assume. `in-process` is the kit alone, through `app.fetch` with no HTTP.
 * The `ceiling-*` targets serve a trivial Hono app (a fixed small JSON for every POST) on the same
 * hosts, at `--ceiling-concurrency` (the issue's 64): the most this machine does with HTTP, Hono and
 * the generator at all, which bounds every environment figure.
 * `--target`, `--concurrency`, `--seconds` and `--warmup` narrow a run; `--generator undici` drives
 * the load through undici instead of raw sockets (it costs the shared CPU more per request).
 */
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { generateSecrets } from "../../environments/kit/index.js";
import { scriptArgs } from "../../shared/script-args.js";
import { runInProcess } from "./in-process.js";
import { type Generator, type LoadResult, runLoad } from "./load.js";
import { startWorkerd } from "./workerd-host.js";

const USAGE = `Usage: npm run bench:envs -- [options]

Calculator episodes per second and step latency at each concurrency on each host, printed as JSON.

Options:
  --seconds <s>                    measured seconds per concurrency level (default 4)
  --concurrency <list>             comma-separated client counts (default 1,16,64,256)
  --target <list>                  hosts, comma-separated (default all): in-process, node,
                                   node-cluster, workerd, workerd-cluster, and each but
                                   in-process as ceiling-<host> (a trivial app on that host)
  --ceiling-concurrency <list>     client counts for the ceiling-* targets (default 64)
  --generator <raw|undici>         the load generator's client (default raw)
  --warmup <s>                     seconds of load before the first measured level (default 5)
  -h, --help                       this text`;
const args = scriptArgs("bench:envs", USAGE, {
  seconds: { type: "string", default: "4" },
  concurrency: { type: "string", default: "1,16,64,256" },
  target: {
    type: "string",
    default:
      "in-process,node,node-cluster,workerd,workerd-cluster,ceiling-node,ceiling-node-cluster,ceiling-workerd,ceiling-workerd-cluster",
  },
  "ceiling-concurrency": { type: "string", default: "64" },
  /** The load generator's client: `raw` sockets (leanest, the default) or `undici`'s pool. */
  generator: { type: "string", default: "raw" },
  /** Load before the first measured level, so the figures are a warm server's, not V8 compiling. */
  warmup: { type: "string", default: "5" },
});
const { values } = args;
const durationMs = args.number("seconds") * 1000;
const warmupMs = args.number("warmup") * 1000;
const levels = values.concurrency.split(",").map(Number);
const ceilingLevels = values["ceiling-concurrency"].split(",").map(Number);
const targets = values.target.split(",");
const generator: Generator =
  values.generator === "raw" || values.generator === "undici"
    ? values.generator
    : args.fail(`--generator wants raw or undici, not ${JSON.stringify(values.generator)}`);

/** The Node host in its own process(es): `workers` > 1 is a node:cluster sharing one port. */
async function startNode(bindings: Record<string, string>, workers: number, app: "envs" | "trivial") {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(import.meta.dirname, "node-host.ts")], {
    env: {
      ...process.env,
      EDGEGYM_BENCH_BINDINGS: JSON.stringify(bindings),
      EDGEGYM_BENCH_WORKERS: String(workers),
      EDGEGYM_BENCH_APP: app,
      NODE_ENV: "production",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout }).once("line", (l) => done(l));
    child.once("exit", (code, signal) =>
      fail(new Error(`the Node host exited (${signal ?? code}) before listening`)),
    );
  });
  const { port, pids } = JSON.parse(line) as { port: number; pids: number[] };
  return { origin: `http://127.0.0.1:${port}`, pids, stop: () => child.kill("SIGTERM") };
}

async function measure(origin: string, pids: readonly number[], at: number[]): Promise<LoadResult[]> {
  const base = `${origin}/envs/calculator`;
  if (warmupMs > 0) await runLoad(base, 16, warmupMs, [], 0, generator);
  const out: LoadResult[] = [];
  for (const c of at) out.push(await runLoad(base, c, durationMs, pids, 500, generator));
  return out;
}

const bindings = await generateSecrets();
const report: Record<string, unknown> = {
  benchmark: "calculator episodes (session + expert steps), steps/s and step latency",
  cpus: cpus().length,
  secondsPerLevel: durationMs / 1000,
  /** Each server (and the in-process kit) ran this long under load before the first measurement. */
  warmupSeconds: warmupMs / 1000,
  /** Other load on the machine skews every figure but serverCpuMicrosPerStep. */
  loadAverageAtStart: loadavg()[0],
};
if (targets.includes("in-process")) report["in-process"] = await runInProcess(bindings, durationMs, warmupMs);
for (const target of targets.filter((t) => t !== "in-process")) {
  const ceiling = target.startsWith("ceiling-");
  const host = target.replace(/^ceiling-/, "");
  // The environments' own worker entry: the hub in front of it (wrangler's main) is not what this measures.
  const processes = host.endsWith("-cluster") ? cpus().length : 1;
  let server: { origin: string; pids: number[]; stop: () => void };
  try {
    server = host.startsWith("workerd")
      ? await startWorkerd(
          bindings,
          ceiling ? "tests/bench/trivial-app.ts" : "environments/worker.ts",
          processes,
        )
      : await startNode(bindings, processes, ceiling ? "trivial" : "envs");
  } catch (e) {
    // One line, and the other targets still run: a host that cannot start is a finding, not a crash.
    const why = e instanceof Error ? e.message : String(e);
    console.error(`bench:envs: ${target} did not start: ${why}`);
    report[target] = { error: `did not start: ${why}` };
    process.exitCode = 1;
    continue;
  }
  try {
    report[target] = await measure(server.origin, server.pids, ceiling ? ceilingLevels : levels);
  } finally {
    server.stop();
  }
}
console.log(JSON.stringify(report, null, 2));
