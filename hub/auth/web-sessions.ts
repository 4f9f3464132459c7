import { eq, lte } from "drizzle-orm";
import { toBase64Url } from "../../shared/base64url.js";
import { hubTokens, hubWebSessions } from "../../shared/db/schema.js";
import type { HubDb } from "../db.js";
import type { Principal, Scope } from "../env.js";
import { hashToken } from "./tokens.js";

/**
 * A web session lasts at most this long (and never past its token's own expiry): a copied cookie
 * is worth hours, where an API token may be good for months.
 */
export const WEB_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const SESSION_PREFIX = "ews_";

/**
 * Opens a session for token `tokenId` (already checked valid): a fresh random secret, returned for
 * the cookie and stored only hashed. Expired sessions are swept here, so the table stays small
 * without a scheduled job.
 */
export async function openWebSession(
  db: HubDb,
  tokenId: string,
  now: number,
): Promise<{ secret: string; expiresAt: number }> {
  const token = await db.query.hubTokens.findFirst({ where: eq(hubTokens.id, tokenId) });
  const expiresAt = Math.min(now + WEB_SESSION_TTL_MS, token?.expiresAt?.getTime() ?? Infinity);
  const secret = SESSION_PREFIX + toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  await db.delete(hubWebSessions).where(lte(hubWebSessions.expiresAt, new Date(now)));
  await db.insert(hubWebSessions).values({
    hash: await hashToken(secret),
    tokenId,
    expiresAt: new Date(expiresAt),
    createdAt: new Date(now),
  });
  return { secret, expiresAt };
}

/**
 * Who a session cookie signs in: null for an unknown, ended or expired session, and for one whose
 * token has since been revoked or has expired.
 */
export async function webSessionPrincipal(db: HubDb, secret: string, now: number): Promise<Principal | null> {
  if (!secret.startsWith(SESSION_PREFIX)) return null;
  const [row] = await db
    .select({ expiresAt: hubWebSessions.expiresAt, token: hubTokens })
    .from(hubWebSessions)
    .innerJoin(hubTokens, eq(hubTokens.id, hubWebSessions.tokenId))
    .where(eq(hubWebSessions.hash, await hashToken(secret)))
    .limit(1);
  if (!row || row.expiresAt.getTime() <= now) return null;
  const { token } = row;
  if (token.revokedAt || (token.expiresAt && token.expiresAt.getTime() <= now)) return null;
  return { kind: "token", tokenId: token.id, team: token.team, scopes: token.scopes as Scope[] };
}

/** Ends a session: its row is deleted, so the cookie signs nobody in from anywhere. */
export async function endWebSession(db: HubDb, secret: string): Promise<void> {
  await db.delete(hubWebSessions).where(eq(hubWebSessions.hash, await hashToken(secret)));
}
