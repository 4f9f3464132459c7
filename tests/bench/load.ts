import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { formatNumber } from "../../environments/calculator/evaluator.js";
import { proceduralTask } from "../../environments/calculator/tasks.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { RawConnection } from "./raw-client.js";

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
  generator: Generator;
  /** The generator's CPU (this process, warm-up included) per step: what the server could not use. */
  clientCpuMicrosPerStep: number;
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

/** The load generator's HTTP client: a raw keep-alive socket per client (the default), or undici's pool. */
export type Generator = "raw" | "undici";

type Post = (route: string, body: unknown) => Promise<Record<string, unknown>>;
type Clients = { posts: Post[]; close: () => Promise<void> };

const parsed = (route: string, status: number, text: string) => {
  const json = JSON.parse(text) as Record<string, unknown>;
  if (status >= 300) throw new Error(`${route}: ${status} ${text}`);
  return json;
};

function rawClients(url: URL, path: string, concurrency: number): Clients {
  const connections = Array.from(
    { length: concurrency },
    () => new RawConnection(url.hostname, Number(url.port || 80)),
  );
  return {
    posts: connections.map((c) => async (route: string, body: unknown) => {
      const r = await c.post(`${path}${route}`, JSON.stringify(body));
      return parsed(route, r.status, r.text);
    }),
    close: async () => {
      for (const c of connections) c.close();
    },
  };
}

function undiciClients(url: URL, path: string, concurrency: number): Clients {
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  // undici's dispatch API hands over the raw response chunks: no body stream per response.
  const post: Post = (route, body) =>
    new Promise((resolve, reject) => {
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
              resolve(parsed(route, status, text));
            } catch (e) {
              reject(e);
            }
          },
          onResponseError: (_c, error) => reject(error),
        },
      );
    });
  return { posts: Array.from({ length: concurrency }, () => post), close: () => pool.close() };
}

/**
 * `concurrency` clients, each playing calculator episodes back to back (start a session, step the
 * expert's actions to the end) over its own keep-alive HTTP/1.1 connection for `durationMs`.
 * Latency is per step.
 */
export async function runLoad(
  base: string,
  concurrency: number,
  durationMs: number,
  serverPids: readonly number[] = [],
  warmupMs = 500,
  generator: Generator = "raw",
): Promise<LoadResult> {
  const url = new URL(base);
  const path = url.pathname.replace(/\/$/, "");
  const clients = (generator === "raw" ? rawClients : undiciClients)(url, path, concurrency);
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
  const client = async (id: number, post: Post) => {
    let n = id * 37;
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
  const cpu0 = process.cpuUsage();
  await Promise.all(clients.posts.map((post, i) => client(i, post)));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = serverCpu();
  const own = process.cpuUsage(cpu0);
  await clients.close();
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
    generator,
    clientCpuMicrosPerStep: Math.round((own.user + own.system) / Math.max(allSteps, 1)),
    ...(cpuBefore !== undefined && cpuAfter !== undefined
      ? { serverCpuMicrosPerStep: Math.round((cpuAfter - cpuBefore) / Math.max(allSteps, 1)) }
      : {}),
  };
}
