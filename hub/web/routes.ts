import type { Context, Handler } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EdgegymError } from "../../shared/errors.js";
import { bodyTooLarge, errorResponse } from "../../shared/http.js";
import {
  accountPage,
  createTokenPost,
  revokeTokenPost,
  sharePost,
  signInPage,
  signInPost,
  signOutPost,
  unsharePost,
} from "./account.js";
import { envCardPage } from "./env-card.js";
import { homePage } from "./home.js";
import { layout } from "./layout.js";
import { leaderboardPage } from "./leaderboard.js";
import { pageHeaders } from "./page-headers.js";
import { runPage } from "./run.js";
import { readSession, type WebEnv } from "./session.js";
import { CSS_PATH, HUB_CSS } from "./style.js";

/**
 * Defence in depth under the escaping: the pages run no script at all, load nothing from elsewhere and
 * can't be framed; signed-in pages (new token secrets among them) are never cached.
 */
function secure(res: Response, signedIn: boolean): void {
  pageHeaders(
    res,
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  if (signedIn) res.headers.set("cache-control", "no-store");
}

/**
 * A form is a token, a team name, a few scopes: 16 KiB is plenty. A larger body is refused before
 * it is read (from its Content-Length, or as it streams in), with a problem, not a page: the
 * refusal reads no session.
 */
export const WEB_BODY_MAX_BYTES = 16 * 1024;
const bodyLimited = bodyLimit({
  maxSize: WEB_BODY_MAX_BYTES,
  onError: () => errorResponse(bodyTooLarge(WEB_BODY_MAX_BYTES)),
});

/** First path segments that belong to the API and the hosted envs, never to a team's page. */
const RESERVED = new Set(["v1", "envs", "static", "runs"]);

/**
 * The web hub: server-rendered pages over the same domain functions as the API. Mounted at `/` with
 * `app.route`, so it adds routes only (no `*` middleware): the session is read per page, and the
 * Origin check (hono/csrf) guards every POST besides each form's own CSRF token.
 */
export function webApp(): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const page =
    (h: (c: Context<WebEnv>) => Response | Promise<Response>): Handler<WebEnv> =>
    async (c) => {
      c.set("web", await readSession(c, c.var.now()));
      if (RESERVED.has(c.req.param("owner") ?? "")) return c.notFound();
      const res = await h(c);
      secure(res, c.get("web").principal.kind === "token");
      return res;
    };
  const origin = csrf();
  // Every route, GETs included: the sub-app is mounted at `/`, so a `*` middleware would reach the API.
  const get = (path: string, h: Handler<WebEnv>) => web.get(path, bodyLimited, h);
  const post = (path: string, h: Handler<WebEnv>) => web.post(path, bodyLimited, origin, h);

  get(CSS_PATH, (c) =>
    c.body(HUB_CSS, 200, {
      "content-type": "text/css; charset=utf-8",
      "cache-control": "public, max-age=3600",
    }),
  );
  get("/", page(homePage));
  get(
    "/sign-in",
    page((c) => signInPage(c)),
  );
  post(
    "/sign-in",
    page((c) => signInPost(c, c.var.now)),
  );
  post("/sign-out", page(signOutPost));
  get(
    "/account",
    page((c) => accountPage(c)),
  );
  post(
    "/tokens",
    page((c) => createTokenPost(c, c.var.now)),
  );
  post(
    "/tokens/:id/revoke",
    page((c) => revokeTokenPost(c, c.var.now)),
  );
  get("/runs/:id", page(runPage));
  get("/:owner/:name", page(envCardPage));
  get("/:owner/:name/leaderboard", page(leaderboardPage));
  post(
    "/:owner/:name/shares",
    page((c) => sharePost(c, c.var.now)),
  );
  post("/:owner/:name/shares/:team/revoke", page(unsharePost));

  web.onError(async (e, c) => {
    const status = (
      e instanceof EdgegymError ? e.status : e instanceof HTTPException ? e.status : 500
    ) as ContentfulStatusCode;
    if (!(e instanceof EdgegymError) && !(e instanceof HTTPException))
      console.error("web: unhandled error", e);
    if (!c.get("web")) c.set("web", { principal: { kind: "anonymous" }, secret: null, csrf: null });
    const title =
      status === 404
        ? "Not found"
        : status === 401
          ? "Sign in needed"
          : status === 403
            ? "Not allowed"
            : "Error";
    const detail =
      status === 404
        ? "There is nothing here, or it is not visible to you."
        : e instanceof EdgegymError || e instanceof HTTPException
          ? e.message
          : "Something went wrong on the hub.";
    const body = html`<h1>${title}</h1><div class="error" role="alert">${detail}</div>
      ${status === 401 ? html`<p><a href="/sign-in">Sign in</a></p>` : html`<p><a href="/">Back to the hub</a></p>`}`;
    const res = await c.html(layout(c, title, body), status);
    secure(res, c.get("web").principal.kind === "token");
    return res;
  });
  return web;
}
