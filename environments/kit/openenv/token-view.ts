import type { Environment } from "../define-environment.js";
import { resolveKeys } from "../keys.js";
import { openSession } from "../session.js";
import type { EnvRuntime } from "../types.js";
import type { EpisodeView } from "./episode.js";

/**
 * The episode a sealed token is, read from its claims: what a stateless `/step` or `/state` starts
 * from. The token is opened (and so authenticated) as a step would open it.
 */
export async function viewOfToken(
  env: Environment,
  token: string,
  runtime: EnvRuntime,
  now: number,
): Promise<EpisodeView> {
  const [keys, hash] = await Promise.all([resolveKeys(env.name, runtime), env.contentHash(runtime)]);
  const claims = await openSession(token, keys.seal, env.name, hash, now, env.definition.stateSchema);
  return {
    token,
    episodeId: claims.ep,
    task: { split: claims.split, index: claims.index },
    step: claims.step,
    done: claims.done,
    return: claims.ret,
  };
}
