import { desc, eq } from "drizzle-orm";
import { hubTeams, hubTokens } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HubDb } from "../db.js";
import type { Principal, Scope } from "../env.js";
import { forgetTokens, hasScope } from "./middleware.js";
import { hashToken, newId, newTokenSecret } from "./tokens.js";

/**
 * Token management shared by the API (`/v1/teams/{team}/tokens`, `/v1/tokens/{id}`) and the web hub's
 * signed-in pages, so both enforce one set of rules.
 */

/** A new token for `team` (which must exist); the secret is in the result and nowhere else. */
export async function createTeamToken(
  db: HubDb,
  team: string,
  req: { scopes: readonly Scope[]; expiresAt?: string | undefined },
  now: number,
) {
  if (!(await db.query.hubTeams.findFirst({ where: eq(hubTeams.name, team) }))) {
    throw new EdgegymError("not_found", `no team ${team}`);
  }
  const expires = req.expiresAt ? new Date(req.expiresAt) : null;
  if (expires && expires.getTime() <= now) {
    throw new EdgegymError("invalid_request", "expiresAt is in the past", {
      issues: [{ path: "expiresAt", message: "must be in the future" }],
    });
  }
  const token = newTokenSecret();
  const id = newId("tok");
  const unique = [...new Set(req.scopes)];
  await db.insert(hubTokens).values({
    id,
    team,
    hash: await hashToken(token),
    scopes: unique,
    expiresAt: expires,
    createdAt: new Date(now),
  });
  return { id, token, team, scopes: unique, expiresAt: expires?.toISOString() ?? null };
}

/**
 * Revokes token `id` for `p`: its team's admin, the token itself or the bootstrap secret may. Another
 * team's token id is reported exactly like an unknown one.
 */
export async function revokeTokenAs(db: HubDb, p: Principal, id: string, now: number): Promise<void> {
  const row = await db.query.hubTokens.findFirst({ where: eq(hubTokens.id, id) });
  const allowed =
    row !== undefined &&
    (p.kind === "bootstrap" ||
      (p.kind === "token" && (p.tokenId === id || (p.team === row.team && hasScope(p, "admin")))));
  if (!row || !allowed) throw new EdgegymError("not_found", `no token ${id}`);
  if (!row.revokedAt) {
    await db
      .update(hubTokens)
      .set({ revokedAt: new Date(now) })
      .where(eq(hubTokens.id, id));
  }
  forgetTokens();
}

/** A team's tokens, newest first, without their hashes. */
export async function teamTokens(db: HubDb, team: string) {
  const rows = await db.query.hubTokens.findMany({
    where: eq(hubTokens.team, team),
    orderBy: desc(hubTokens.createdAt),
  });
  return rows.map(({ hash: _hash, ...rest }) => rest);
}
