import { Pool } from "undici";

/** Percentile of latencies in ms, to 3 decimals. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN).toFixed(3));
};

export type ReplayOptions = {
  /** Env base URL, e.g. `http://127.0.0.1:PORT/envs/search`. */
  base: string;
  concurrency: number;
  durationMs: number;
  /** Train tasks to cycle through. */
  tasks: number;
  /** The expert's actions for a task (envs are deterministic, so they can be recorded beforehand). */
  actions: (index: number) => readonly string[];
};

/**
 * Replays expert episodes over HTTP at a fixed concurrency for `durationMs`: sessions and steps only,
 * so the figures are the server's. The first session is started before timing (it may load a corpus).
 */
export async function replayLoad(o: ReplayOptions) {
  const url = new URL(o.base);
  const pool = new Pool(url.origin, { connections: o.concurrency });
  const post = async (route: string, body: unknown) => {
    const res = await pool.request({
      method: "POST",
      path: `${url.pathname}/v1${route}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as { session: string; reward?: number; done?: boolean };
    if (res.statusCode >= 300) throw new Error(`${route}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    await post("/sessions", { split: "train", index: 0 });
    const latency: number[] = [];
    let [steps, episodes, solved, errors, next] = [0, 0, 0, 0, 0];
    const stopAt = performance.now() + o.durationMs;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (performance.now() < stopAt) {
          const index = next++ % o.tasks;
          try {
            let { session } = await post("/sessions", { split: "train", index });
            for (const content of o.actions(index)) {
              const s = performance.now();
              const r = await post("/step", { session, action: { content } });
              latency.push(performance.now() - s);
              steps++;
              session = r.session;
              if (r.done) {
                episodes++;
                if (r.reward === 1) solved++;
                break;
              }
            }
          } catch {
            errors++;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    return {
      concurrency: o.concurrency,
      stepsPerSecond: Number((steps / seconds).toFixed(1)),
      stepP50Ms: pct(latency, 0.5),
      stepP99Ms: pct(latency, 0.99),
      steps,
      episodes,
      expertSolved: solved,
      errors,
    };
  } finally {
    await pool.close();
  }
}
