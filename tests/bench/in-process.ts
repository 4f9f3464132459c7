import { createEnvironmentsHost } from "../../environments/host.js";
import { ACTIONS } from "./load.js";

/**
 * Calculator episodes through `app.fetch` with no HTTP at all, one at a time, as the trainer's
 * in-process runs do: the kit's own cost per step, as wall time and as this process's CPU time.
 */
export async function runInProcess(bindings: Record<string, string>, durationMs: number, warmupMs = 3000) {
  const app = createEnvironmentsHost();
  const post = async (path: string, body: unknown) => {
    const res = await app.fetch(
      new Request(`http://local/envs/calculator${path}`, { method: "POST", body: JSON.stringify(body) }),
      bindings,
    );
    return (await res.json()) as { session: string };
  };
  const episode = async (n: number) => {
    const ep = ACTIONS[n % ACTIONS.length] as (typeof ACTIONS)[number];
    let { session } = await post("/v1/sessions", { split: "train", index: ep.index });
    for (const content of ep.actions)
      session = (await post("/v1/step", { session, action: { content } })).session;
    return ep.actions.length;
  };
  // Until V8 has compiled the hot paths: CPU per step is otherwise mostly the compiler's.
  for (let i = 0, t = performance.now(); performance.now() - t < warmupMs; i++) await episode(i);
  let steps = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < durationMs; i++) steps += await episode(i);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return {
    stepsPerSecond: Math.round(steps / seconds),
    cpuMicrosPerStep: Math.round((cpu.user + cpu.system) / steps),
    steps,
  };
}
