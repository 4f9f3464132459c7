import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { formatNumber } from "../../environments/calculator/evaluator.js";
import { proceduralTask } from "../../environments/calculator/tasks.js";
import { formatHermesCall } from "../../shared/tool-calls.js";

export type LoadResult = {
  concurrency: number;
  stepsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  steps: number;
  episodes: number;
  /** Requests of any kind per second: steps plus the session starts. */
  requestsPerSecond: number;
  errors: number;
  /** Server CPU (all threads) per step, session starts included: independent of the client and of other load. */
  serverCpuMicrosPerStep?: number;
};

/** CPU time of a process in µs (Linux `/proc/<pid>/stat`, utime + stime at 100 ticks/s). */
export function processCpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** The expert's actions for a calculator task, computed client-side so the load is only sessions and steps. */
function expertActions(index: number): string[] {
  const task = proceduralTask("train", index);
  return [
    ...task.calls.map((expression) => formatHermesCall("calculator", { expression })),
    `#### ${formatNumber(task.answer)}`,
  ];
}

export const ACTIONS = Array.from({ length: 512 }, (_, i) => ({ index: i, actions: expertActions(i) }));

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

/**
 * `concurrency` clients, each playing calculator episodes back to back (start a session, step the
 * expert's actions to the end) over keep-alive HTTP/1.1 for `durationMs`. Latency is per step.
 */
export async function runLoad(
  base: string,
  concurrency: number,
  durationMs: number,
  serverPids: readonly number[] = [],
  warmupMs = 500,
): Promise<LoadResult> {
  const url = new URL(base);
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  const path = url.pathname.replace(/\/$/, "");
  // undici's dispatch API hands over the raw response chunks: no body stream per response, so the
  // generator spends less of the CPU it shares with the server.
  const post = (route: string, body: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      pool.dispatch(
        {
          method: "POST",
          path: `${path}${route}`,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        },
        {
          onRequestStart: () => {},
          onResponseStart: (_c, statusCode) => {
            status = statusCode;
          },
          onResponseData: (_c, chunk) => {
            chunks.push(chunk);
          },
          onResponseEnd: () => {
            const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString();
            try {
              const json = JSON.parse(text) as Record<string, unknown>;
              if (status >= 300) reject(new Error(`${route}: ${status} ${text}`));
              else resolve(json);
            } catch (e) {
              reject(e);
            }
          },
          onResponseError: (_c, error) => reject(error),
        },
      );
    });
  const latencies: number[] = [];
  let measuring = false;
  let [steps, episodes, sessions, errors, allSteps] = [0, 0, 0, 0, 0];
  const serverCpu = () => {
    const each = serverPids.map(processCpuMicros);
    return each.length > 0 && each.every((v) => v !== undefined)
      ? each.reduce((a: number, b) => a + (b ?? 0), 0)
      : undefined;
  };
  const cpuBefore = serverCpu();
  const stopAt = performance.now() + warmupMs + durationMs;
  let started = 0;
  setTimeout(() => {
    measuring = true;
    started = performance.now();
  }, warmupMs);
  const client = async (id: number) => {
    let n = id;
    while (performance.now() < stopAt) {
      const ep = ACTIONS[n++ % ACTIONS.length] as (typeof ACTIONS)[number];
      try {
        let session = (await post("/v1/sessions", { split: "train", index: ep.index })).session;
        if (measuring) sessions++;
        for (const content of ep.actions) {
          const t0 = performance.now();
          const r = await post("/v1/step", { session, action: { content } });
          allSteps++;
          if (measuring) {
            latencies.push(performance.now() - t0);
            steps++;
          }
          session = r.session;
        }
        if (measuring) episodes++;
      } catch (e) {
        errors++;
        if (errors <= 3) console.error(String(e));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => client(i * 37)));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = serverCpu();
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    concurrency,
    stepsPerSecond: Math.round(steps / elapsed),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    steps,
    episodes,
    requestsPerSecond: Math.round((steps + sessions) / elapsed),
    errors,
    ...(cpuBefore !== undefined && cpuAfter !== undefined
      ? { serverCpuMicrosPerStep: Math.round((cpuAfter - cpuBefore) / Math.max(allSteps, 1)) }
      : {}),
  };
}
