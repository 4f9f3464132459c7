/**
 * `npm run bench:code`: code-environment episodes (session, a `run_javascript` step with the task's
 * reference program, the answer) at concurrency 1, 16 and 64 against the Node host in its own
 * process and, with `--target node,workerd`, the bundled worker on the workerd binary. Also the
 * sandbox's cost per call in-process, the expert's success rate on procedural tasks and, when
 * ../shared/data is present, on GSM8K. Prints JSON.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { Pool } from "undici";
import { sameNumber } from "../../environments/calculator/answer.js";
import { importGsm8k } from "../../environments/calculator/gsm8k.js";
import type { CalcTask } from "../../environments/calculator/tasks.js";
import { gsm8kCodeTask } from "../../environments/code/gsm8k-program.js";
import { code } from "../../environments/code/index.js";
import { runJavaScript } from "../../environments/code/run-queue.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../environments/code/sandbox.js";
import { codeTask } from "../../environments/code/tasks.js";
import { generateSecrets } from "../../environments/kit/index.js";
import type { Action } from "../../shared/protocol.js";
import { scriptArgs } from "../../shared/script-args.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { startWorkerd } from "./workerd-host.js";

const USAGE = `Usage: npm run bench:code -- [options]

Code-environment episodes per second and step latency at each concurrency, plus the sandbox's cost
per call and the expert's success rate, printed as JSON.

Options:
  --seconds <s>          measured seconds per concurrency level (default 4)
  --concurrency <list>   comma-separated client counts (default 1,16,64)
  --target <list>        hosts, comma-separated: node, workerd (default node)
  --episodes <count>     train tasks the expert plays in-process (default 500)
  -h, --help             this text`;
const args = scriptArgs("bench:code", USAGE, {
  seconds: { type: "string", default: "4" },
  concurrency: { type: "string", default: "1,16,64" },
  target: { type: "string", default: "node" },
  episodes: { type: "string", default: "500" },
});
const { values } = args;
const durationMs = args.number("seconds") * 1000;
const expertEpisodes = args.number("episodes");
const levels = values.concurrency.split(",").map(Number);

const EPISODES = Array.from({ length: 256 }, (_, index) => {
  const task = codeTask("train", index);
  return {
    index,
    actions: [
      formatHermesCall("run_javascript", { code: task.program }),
      `<answer>\\boxed{${task.answer}}</answer>`,
    ],
  };
});

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** `concurrency` clients playing episodes back to back over keep-alive HTTP for `durationMs`. */
async function load(base: string, concurrency: number) {
  const url = new URL(base);
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  const post = async (route: string, body: unknown) => {
    const res = await pool.request({
      method: "POST",
      path: `${url.pathname}${route}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode >= 300) throw new Error(`${route}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const latencies: number[] = [];
  let [steps, episodes, wrong, errors, measuring, started] = [0, 0, 0, 0, false, 0];
  const stopAt = performance.now() + 500 + durationMs;
  setTimeout(() => {
    measuring = true;
    started = performance.now();
  }, 500);
  const client = async (id: number) => {
    for (let n = id; performance.now() < stopAt; n++) {
      const ep = EPISODES[n % EPISODES.length] as (typeof EPISODES)[number];
      try {
        let session = (await post("/v1/sessions", { split: "train", index: ep.index })).session;
        let reward = 0;
        for (const content of ep.actions) {
          const t0 = performance.now();
          const r = await post("/v1/step", { session, action: { content } });
          if (measuring) {
            latencies.push(performance.now() - t0);
            steps++;
          }
          session = r.session;
          reward = r.reward as number;
        }
        if (measuring) {
          episodes++;
          if (reward !== 1) wrong++;
        }
      } catch (e) {
        if (++errors <= 3) console.error(String(e));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => client(i * 37)));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    concurrency,
    stepsPerSecond: Math.round(steps / elapsed),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    steps,
    episodes,
    episodesNotRewarded: wrong,
    errors,
  };
}

async function startNode(bindings: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(import.meta.dirname, "node-host.ts")], {
    env: { ...process.env, EDGEGYM_BENCH_BINDINGS: JSON.stringify(bindings), NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((done) =>
    createInterface({ input: child.stdout }).once("line", (l) => done(l)),
  );
  const { port } = JSON.parse(line) as { port: number };
  return { origin: `http://127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
}

/** Milliseconds per sandbox call (fresh runtime and context, run, dispose) for a trivial program. */
async function sandboxCost(calls = 300) {
  await runJavaScript("1", DEFAULT_SANDBOX_LIMITS, { maxWaitMs: 60_000 });
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await runJavaScript("6 * 7", DEFAULT_SANDBOX_LIMITS, { maxWaitMs: 60_000 });
  return round((performance.now() - t0) / calls, 3);
}

/** The expert played in-process on `n` train tasks: share of episodes with reward 1. */
async function expertRate(n: number) {
  const runtime = { bindings: await generateSecrets() };
  let solved = 0;
  for (let index = 0; index < n; index++) {
    let { session } = await code.startSession({ split: "train", index }, runtime);
    for (let step = 0; step < code.limits.maxSteps; step++) {
      const { action } = (await code.expert(session, runtime)) as { action: Action };
      const r = await code.step({ session, action }, runtime);
      session = r.session;
      if (r.done) {
        if (r.reward === 1) solved++;
        break;
      }
    }
  }
  return { episodes: n, solved, rate: round(solved / n, 4) };
}

/** GSM8K programs written from the annotations, run in the sandbox: share that print the answer. */
async function gsm8kRate() {
  const out: Record<string, unknown> = {};
  for (const split of ["train", "test"]) {
    const path = resolve(import.meta.dirname, `../../../shared/data/gsm8k/${split}.jsonl`);
    if (!existsSync(path)) return { skipped: `${path} is missing` };
    const imported = importGsm8k(readFileSync(path, "utf8"), { split });
    if (!imported.ok) return { error: imported.error };
    let solved = 0;
    for (const t of imported.value.tasks) {
      const task = gsm8kCodeTask(t.payload as CalcTask);
      const run = await runJavaScript(task.program, DEFAULT_SANDBOX_LIMITS, { maxWaitMs: 60_000 });
      if (run.ok && sameNumber(Number(run.value.stdout.trim()), task.answer)) solved++;
    }
    const n = imported.value.tasks.length;
    out[split] = { problems: n, solved, rate: round(solved / n, 4) };
  }
  return out;
}

const bindings = await generateSecrets();
const report: Record<string, unknown> = {
  benchmark: "code episodes (session, run_javascript step, answer), steps/s and step latency",
  cpus: cpus().length,
  secondsPerLevel: durationMs / 1000,
  sandboxMsPerCall: await sandboxCost(),
  expert: await expertRate(expertEpisodes),
  gsm8kPrograms: await gsm8kRate(),
};
for (const target of values.target.split(",")) {
  const host = target === "workerd" ? await startWorkerd(bindings) : await startNode(bindings);
  try {
    const results = [];
    for (const c of levels) results.push(await load(`${host.origin}/envs/code`, c));
    report[target] = results;
  } finally {
    host.stop();
  }
}
console.log(JSON.stringify(report, null, 2));
