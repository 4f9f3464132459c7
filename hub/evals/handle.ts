import { z } from "@hono/zod-openapi";
import { EdgegymError } from "../../shared/errors.js";
import { seal, unseal } from "../../shared/seal.js";
import { hubSealKey, type SealKeyBindings } from "../seal-key.js";

/** Marks a hub handle, so the gateway can tell it from an env's own session token without opening it. */
export const HANDLE_PREFIX = "egev.";
/** A handle lives as long as an evaluation episode reasonably may. */
const HANDLE_TTL_SECONDS = 24 * 3600;

/**
 * What a hub-issued evaluation session holds. The env's token (`token`) never leaves the hub, so the
 * client can only step through the hub, which lets each step `step` of `episodeId` happen once.
 */
export const HandleClaims = z.object({
  runId: z.string(),
  task: z.number().int(),
  episodeId: z.string(),
  step: z.number().int().nonnegative(),
  token: z.string(),
});
export type HandleClaims = z.infer<typeof HandleClaims>;

/** The hub's own key for handles. */
const handleKey = (bindings: SealKeyBindings) => hubSealKey(bindings, "hub:eval-handle");

export async function sealHandle(
  claims: HandleClaims,
  bindings: SealKeyBindings,
  now: number,
): Promise<string> {
  return HANDLE_PREFIX + (await seal(claims, await handleKey(bindings), HANDLE_TTL_SECONDS, now));
}

/** The handle's claims; a foreign, tampered or expired handle is the same errors an env gives. */
export async function openHandle(
  handle: string,
  bindings: SealKeyBindings,
  now: number,
): Promise<HandleClaims> {
  const opened = handle.startsWith(HANDLE_PREFIX)
    ? await unseal(handle.slice(HANDLE_PREFIX.length), await handleKey(bindings), now)
    : ({ ok: false, error: "invalid" } as const);
  if (!opened.ok) {
    throw opened.error === "expired"
      ? new EdgegymError("session_expired", "the evaluation session has expired")
      : new EdgegymError("invalid_session", "the session is not an evaluation session this hub issued");
  }
  const claims = HandleClaims.safeParse(opened.value);
  if (!claims.success) throw new EdgegymError("invalid_session", "the evaluation session is malformed");
  return claims.data;
}
