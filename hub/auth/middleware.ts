import { eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { hubTokens } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { HOT_PATH_TTL_MS, TtlCache } from "../cache.js";
import { hubDb } from "../db.js";
import type { AppEnv, Principal, Scope } from "../env.js";
import { hashesEqual, hashToken, TOKEN_PREFIX } from "./tokens.js";

/** last_used_at is rewritten at most this often, so reads don't each cost a D1 write. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves the bearer token (if any, or a Basic header's password) into `c.var.principal`. A missing header is anonymous; a present
 * but unknown, revoked or expired token is a 401, never silently anonymous.
 */
export function authenticate(now: () => number = Date.now): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("principal", await principalOf(c, now()));
    await next();
  });
}

let cachedAdmin: { secret: string; hash: string } | undefined;

/** The bootstrap secret's hash, computed once per isolate. */
async function adminHash(secret: string): Promise<string> {
  if (cachedAdmin?.secret !== secret) cachedAdmin = { secret, hash: await hashToken(secret) };
  return cachedAdmin.hash;
}

async function principalOf(c: Context<AppEnv>, now: number): Promise<Principal> {
  const header = c.req.header("authorization");
  if (header === undefined) return { kind: "anonymous" };
  const secret = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? basicPassword(header);
  if (!secret) {
    throw new EdgegymError(
      "unauthorized",
      "the Authorization header must be `Bearer <token>` (or Basic with the token as the password)",
    );
  }
  return principalOfSecret(c.env, secret, now);
}

/**
 * The password of a `Basic` header: clients that only take a URL (OpenEnv's, whose WebSocket library
 * sends `ws://user:<token>@host/…` as Basic auth) pass the token as it. The user name is ignored.
 */
function basicPassword(header: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)?.[1];
  if (!encoded) return undefined;
  let decoded: string;
  try {
    decoded = atob(encoded);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  const password = colon < 0 ? "" : decoded.slice(colon + 1);
  return password || undefined;
}

/**
 * The principal a token secret stands for (the bearer header's, or the web hub's sign-in cookie's):
 * unknown, revoked and expired tokens are 401s.
 */
export async function principalOfSecret(
  env: AppEnv["Bindings"],
  secret: string,
  now: number,
): Promise<Principal> {
  const hash = await hashToken(secret);
  const admin = env.HUB_ADMIN_TOKEN;
  if (admin && hashesEqual(hash, await adminHash(admin))) return { kind: "bootstrap" };
  if (!secret.startsWith(TOKEN_PREFIX)) throw new EdgegymError("unauthorized", "unknown token");
  const cached = tokens.get(hash, now);
  if (cached && (cached.expiresAt === null || cached.expiresAt > now)) return cached.principal;
  const db = hubDb(env);
  const row = await db.query.hubTokens.findFirst({ where: eq(hubTokens.hash, hash) });
  if (!row) throw new EdgegymError("unauthorized", "unknown token");
  if (row.revokedAt) throw new EdgegymError("unauthorized", "this token has been revoked");
  if (row.expiresAt && row.expiresAt.getTime() <= now) {
    throw new EdgegymError("unauthorized", "this token has expired");
  }
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    await db
      .update(hubTokens)
      .set({ lastUsedAt: new Date(now) })
      .where(eq(hubTokens.id, row.id));
  }
  const principal: Principal = {
    kind: "token",
    tokenId: row.id,
    team: row.team,
    scopes: row.scopes as Scope[],
  };
  tokens.set(hash, { principal, expiresAt: row.expiresAt?.getTime() ?? null }, now);
  return principal;
}

/** Valid tokens by hash, so most requests skip the token query (see `TtlCache`). */
const tokens = new TtlCache<{ principal: Principal; expiresAt: number | null }>(HOT_PATH_TTL_MS);

/** Drops cached tokens: called when one is revoked, so this isolate refuses it at once. */
export function forgetTokens(): void {
  tokens.clear();
}

/** `admin` implies every other scope. */
export function hasScope(p: Principal, scope: Scope): boolean {
  return p.kind === "token" && (p.scopes.includes(scope) || p.scopes.includes("admin"));
}

/** The caller's team, requiring a token with `scope`: 401 when anonymous, 403 when the scope is missing. */
export function requireTeam(p: Principal, scope: Scope): { team: string; tokenId: string } {
  if (p.kind === "anonymous") throw new EdgegymError("unauthorized", "this route needs a bearer token");
  if (p.kind === "bootstrap") {
    throw new EdgegymError("forbidden", "the bootstrap token can only create teams and their tokens");
  }
  if (!hasScope(p, scope)) throw new EdgegymError("forbidden", `this route needs the \`${scope}\` scope`);
  return { team: p.team, tokenId: p.tokenId };
}

/**
 * For reads of things that may be public: anonymous callers pass (and see only public things); a token
 * must carry `read`. Returns the caller's team, if any.
 */
export function readerTeam(p: Principal): string | null {
  if (p.kind === "anonymous" || p.kind === "bootstrap") return null;
  if (!hasScope(p, "read")) throw new EdgegymError("forbidden", "this route needs the `read` scope");
  return p.team;
}
