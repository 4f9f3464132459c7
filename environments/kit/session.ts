import { z } from "zod";
import { EdgegymError } from "../../shared/errors.js";
import { type SealKey, seal, unseal } from "../../shared/seal.js";

/**
 * Everything an episode is, sealed into its token: the server keeps nothing, so any instance can
 * serve any step and a token can be stepped twice to fork.
 */
export const SessionClaims = z.object({
  v: z.literal(1),
  env: z.string(),
  /** Content hash of the environment that issued it: a token outlives no behaviour change. */
  h: z.string(),
  ep: z.string(),
  split: z.string(),
  index: z.number().int().nonnegative(),
  seed: z.number().int(),
  step: z.number().int().nonnegative(),
  state: z.unknown(),
  ret: z.number(),
  done: z.boolean(),
});
export type SessionClaims = z.infer<typeof SessionClaims>;

export function sealSession(
  claims: SessionClaims,
  key: SealKey,
  ttlSeconds: number,
  now: number,
): Promise<string> {
  return seal(claims, key, ttlSeconds, now);
}

/**
 * Opens a token for `env` at `contentHash`, or throws the problem a client should see. Claims of the
 * wrong shape (and a state `stateSchema` refuses) are `invalid_session`, never a crash further on.
 */
export async function openSession(
  token: string,
  key: SealKey,
  env: string,
  contentHash: string,
  now: number,
  stateSchema?: z.ZodType,
): Promise<SessionClaims> {
  const opened = await unseal(token, key, now);
  if (!opened.ok) {
    throw opened.error === "expired"
      ? new EdgegymError("session_expired", "the session token has expired; start a new session")
      : new EdgegymError("invalid_session", "the session token is not one this environment issued");
  }
  // The token authenticated under this environment's own key, so its claims should be ones this kit
  // sealed; they are checked anyway, because the key may be shared or leaked (defence in depth).
  const parsed = SessionClaims.safeParse(opened.value);
  if (!parsed.success || (stateSchema && !stateSchema.safeParse(parsed.data.state).success)) {
    throw new EdgegymError(
      "invalid_session",
      "the session token's claims are not ones this environment issues",
    );
  }
  const claims = parsed.data;
  if (claims.env !== env || claims.h !== contentHash) {
    throw new EdgegymError("invalid_session", "the session token belongs to another environment or version");
  }
  return claims;
}
