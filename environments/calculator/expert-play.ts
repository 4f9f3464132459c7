import type { Environment, EnvRuntime } from "../kit/index.js";

/** How one expert episode ended. */
export type ExpertEpisode = {
  reward: number;
  return: number;
  steps: number;
  truncated: boolean;
  toolErrors: number;
};

/**
 * Plays one episode in-process (through the environment object, no HTTP): the expert acts until the
 * episode is done. Tool errors are counted from the tool responses the env sends back.
 */
export async function playExpert(
  env: Environment,
  runtime: EnvRuntime,
  split: string,
  index: number,
): Promise<ExpertEpisode> {
  let { session } = await env.startSession({ split, index, seed: index }, runtime);
  let total = 0;
  let toolErrors = 0;
  for (let steps = 1; ; steps++) {
    const { action } = await env.expert(session, runtime);
    const r = await env.step({ session, action }, runtime);
    total += r.reward;
    for (const m of r.observation.messages) {
      if (typeof m.content === "string")
        toolErrors += m.content.match(/<tool_response>\s*Error/g)?.length ?? 0;
    }
    if (r.done) return { reward: r.reward, return: total, steps, truncated: r.truncated, toolErrors };
    session = r.session;
  }
}
