/**
 * `npm run bench:envs`: calculator episodes at concurrency 1, 16, 64 and 256 against the Node host
 * (its own process) and the worker on the workerd binary, printing JSON. The load generator runs in
 * this process, so on a 2-core machine server and client share the CPU like the targets assume.
 */
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { generateSecrets } from "../../environments/kit/index.js";
import { type LoadResult, runLoad } from "./load.js";
import { startWorkerd } from "./workerd-host.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    concurrency: { type: "string", default: "1,16,64,256" },
    target: { type: "string", default: "node,workerd" },
  },
});
const durationMs = Number(values.seconds) * 1000;
const levels = values.concurrency.split(",").map(Number);
const targets = values.target.split(",");

async function startNode(bindings: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(import.meta.dirname, "node-host.ts")], {
    env: { ...process.env, EDGEGYM_BENCH_BINDINGS: JSON.stringify(bindings), NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((done) =>
    createInterface({ input: child.stdout }).once("line", (l) => done(l)),
  );
  const { port } = JSON.parse(line) as { port: number };
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill("SIGTERM") };
}

async function measure(origin: string, pid: number | undefined): Promise<LoadResult[]> {
  const out: LoadResult[] = [];
  for (const c of levels) out.push(await runLoad(`${origin}/envs/calculator`, c, durationMs, pid));
  return out;
}

const bindings = await generateSecrets();
const report: Record<string, unknown> = {
  benchmark: "calculator episodes (session + expert steps), steps/s and step latency",
  cpus: cpus().length,
  secondsPerLevel: durationMs / 1000,
  /** Other load on the machine skews every figure but serverCpuMicrosPerStep. */
  loadAverageAtStart: loadavg()[0],
};
for (const target of targets) {
  // The environments' own worker entry: the hub in front of it (wrangler's main) is not what this measures.
  const host =
    target === "workerd" ? await startWorkerd(bindings, "environments/worker.ts") : await startNode(bindings);
  try {
    report[target] = await measure(host.origin, host.pid);
  } finally {
    host.stop();
  }
}
console.log(JSON.stringify(report, null, 2));
