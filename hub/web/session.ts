import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sha256Hex } from "../../shared/content-hash.js";
import { EdgegymError } from "../../shared/errors.js";
import { principalOfSecret } from "../auth/middleware.js";
import type { AppEnv, Principal } from "../env.js";

/** The sign-in cookie: the team's API token itself, kept where page scripts can't read it. */
export const SESSION_COOKIE = "edgegym_token";

export type WebSession = {
  principal: Principal;
  /** The token secret (the cookie), only to derive the form token from. */
  secret: string | null;
  /** The value every signed-in form carries in `_csrf`. */
  csrf: string | null;
};

export type WebEnv = AppEnv & { Variables: AppEnv["Variables"] & { web: WebSession } };

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
 * Who the cookie signs in: a revoked, expired or unknown token (or the bootstrap secret, which is not a
 * team) signs nobody in, and its cookie is cleared.
 */
export async function readSession(c: Context<WebEnv>, now: number): Promise<WebSession> {
  const secret = getCookie(c, SESSION_COOKIE);
  if (!secret) return { principal: { kind: "anonymous" }, secret: null, csrf: null };
  try {
    const principal = await principalOfSecret(c.env, secret, now);
    if (principal.kind === "token") return { principal, secret, csrf: await csrfOf(secret) };
  } catch (e) {
    if (!(e instanceof EdgegymError)) throw e;
  }
  signOut(c);
  return { principal: { kind: "anonymous" }, secret: null, csrf: null };
}

export function signIn(c: Context<WebEnv>, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, {
    httpOnly: true,
    secure: !isLocalhost(c),
    sameSite: "Strict",
    path: "/",
    maxAge: 60 * 60 * 24 * 30,
  });
}

export function signOut(c: Context<WebEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: !isLocalhost(c), httpOnly: true, sameSite: "Strict" });
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
