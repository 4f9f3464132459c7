import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sha256Hex } from "../../shared/content-hash.js";
import { EdgegymError } from "../../shared/errors.js";
import { endWebSession, openWebSession, webSessionPrincipal } from "../auth/web-sessions.js";
import { hubDb } from "../db.js";
import type { AppEnv, Principal } from "../env.js";

/** The sign-in cookie: a web session's own secret (hub/auth/web-sessions.ts), never an API token. */
export const SESSION_COOKIE = "edgegym_session";

export type WebSession = {
  principal: Principal;
  /** The session's secret (the cookie), only to derive the form token from and to end it. */
  secret: string | null;
  /** The value every signed-in form carries in `_csrf`. */
  csrf: string | null;
};

export type WebEnv = AppEnv & { Variables: AppEnv["Variables"] & { web: WebSession } };

const ANONYMOUS: WebSession = { principal: { kind: "anonymous" }, secret: null, csrf: null };

/** Cookies are `Secure` except on localhost, where the local hub is plain http. */
function isLocalhost(c: Context): boolean {
  const host = new URL(c.req.url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/**
 * The form token of a session: a hash of the cookie's secret under a fixed label. A page on another
 * site can't read the cookie, so it can't compute the token (on top of SameSite=Strict and the Origin
 * check of hono/csrf).
 */
async function csrfOf(secret: string): Promise<string> {
  return (await sha256Hex(`edgegym-web-csrf\n${secret}`)).slice(0, 40);
}

/**
 * Who the cookie signs in: an unknown, ended or expired session (or one whose token was revoked or
 * has expired) signs nobody in, and its cookie is cleared.
 */
export async function readSession(c: Context<WebEnv>, now: number): Promise<WebSession> {
  const secret = getCookie(c, SESSION_COOKIE);
  if (!secret) return ANONYMOUS;
  const principal = await webSessionPrincipal(hubDb(c.env), secret, now);
  if (principal) return { principal, secret, csrf: await csrfOf(secret) };
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
  return ANONYMOUS;
}

function cookieOptions(c: Context<WebEnv>) {
  return { path: "/", secure: !isLocalhost(c), httpOnly: true, sameSite: "Strict" } as const;
}

/** Opens a web session for token `tokenId` and sets its cookie, which lives as long as the session. */
export async function signIn(c: Context<WebEnv>, tokenId: string, now: number): Promise<void> {
  const { secret, expiresAt } = await openWebSession(hubDb(c.env), tokenId, now);
  setCookie(c, SESSION_COOKIE, secret, {
    ...cookieOptions(c),
    maxAge: Math.max(1, Math.floor((expiresAt - now) / 1000)),
  });
}

/** Ends the session in the database (a copy of the cookie signs nobody in) and clears the cookie. */
export async function signOut(c: Context<WebEnv>): Promise<void> {
  const { secret } = c.get("web");
  if (secret) await endWebSession(hubDb(c.env), secret);
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
}

/** The signed-in team, or a 401 page that offers sign-in. */
export function webTeam(c: Context<WebEnv>): { team: string; principal: Principal & { kind: "token" } } {
  const p = c.get("web").principal;
  if (p.kind !== "token")
    throw new EdgegymError("unauthorized", "sign in with an API token to see this page");
  return { team: p.team, principal: p };
}

/**
 * A signed-in form's fields, after checking its `_csrf` against the session's token: a form posted
 * from anywhere else is refused with 403 before anything changes.
 */
export async function signedForm(
  c: Context<WebEnv>,
  parsed?: Record<string, unknown>,
): Promise<Record<string, string>> {
  const body = parsed ?? (await c.req.parseBody());
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") fields[k] = v;
  const { csrf } = c.get("web");
  if (csrf === null) throw new EdgegymError("unauthorized", "sign in with an API token first");
  if (fields._csrf !== csrf)
    throw new EdgegymError("forbidden", "the form's CSRF token is missing or stale; reload the page");
  return fields;
}
