import type { Context } from "hono";
import { html } from "hono/html";
import { EdgegymError } from "../../shared/errors.js";
import { Role, SCOPES, type Scope, Slug } from "../../shared/registry.js";
import { hasScope, principalOfSecret, requireTeam } from "../auth/middleware.js";
import { createTeamToken, revokeTokenAs, teamTokens } from "../auth/token-admin.js";
import { WEB_SESSION_TTL_MS } from "../auth/web-sessions.js";
import { hubDb } from "../db.js";
import { searchEnvs } from "../registry/search.js";
import { ownedEnv, shareEnv, unshareEnv } from "../registry/shares.js";
import { envCards } from "./env-list.js";
import { type Html, layout, when } from "./layout.js";
import { signedForm, signIn, signOut, type WebEnv, webTeam } from "./session.js";

type Now = () => number;

/** `GET /sign-in`: a form for an API token (the hub has no passwords: a team is its tokens). */
export function signInPage(c: Context<WebEnv>, error?: string) {
  const body = html`<h1>Sign in</h1>
    <p>Sign in with one of your team's API tokens (<code>egh_…</code>). The hub keeps no copy of it in your
      browser: you get a session of at most ${WEB_SESSION_TTL_MS / 3_600_000} hours in an HttpOnly cookie that page scripts can't read and other
      sites can't send, ended when you sign out.</p>
    ${error ? html`<div class="error" role="alert">${error}</div>` : ""}
    <form class="stack" method="post" action="/sign-in">
      <label>API token <input type="password" name="token" autocomplete="off" required /></label>
      <button type="submit">Sign in</button>
    </form>`;
  return c.html(layout(c, "Sign in", body), error ? 401 : 200);
}

/** `POST /sign-in`: only a valid team token signs in; the bootstrap secret is not a team. */
export async function signInPost(c: Context<WebEnv>, now: Now) {
  const form = await c.req.parseBody();
  const token = typeof form.token === "string" ? form.token.trim() : "";
  let principal: Awaited<ReturnType<typeof principalOfSecret>> | null = null;
  try {
    principal = token ? await principalOfSecret(c.env, token, now()) : null;
  } catch (e) {
    if (!(e instanceof EdgegymError)) throw e;
    return signInPage(c, e.message);
  }
  if (principal?.kind !== "token") return signInPage(c, "Sign in with a team's API token.");
  await signIn(c, principal.tokenId, now());
  return c.redirect("/account", 303);
}

export async function signOutPost(c: Context<WebEnv>) {
  await signedForm(c);
  await signOut(c);
  return c.redirect("/", 303);
}

function tokensView(
  c: Context<WebEnv>,
  tokens: Awaited<ReturnType<typeof teamTokens>>,
  admin: boolean,
): Html {
  const csrf = c.get("web").csrf ?? "";
  const self = c.get("web").principal;
  const selfId = self.kind === "token" ? self.tokenId : "";
  return html`<div class="scroll"><table class="tokens">
      <thead><tr><th>id</th><th>scopes</th><th>created</th><th>expires</th><th>last used</th><th>status</th><th></th></tr></thead>
      <tbody>${tokens.map(
        (t) => html`<tr data-token-id="${t.id}">
          <td><code>${t.id}</code>${t.id === selfId ? html` <span class="badge">this session</span>` : ""}</td>
          <td>${t.scopes.join(", ")}</td>
          <td>${when(t.createdAt)}</td>
          <td>${t.expiresAt ? when(t.expiresAt) : "never"}</td>
          <td>${t.lastUsedAt ? when(t.lastUsedAt) : "–"}</td>
          <td>${t.revokedAt ? html`<span class="badge bad">revoked</span>` : html`<span class="badge ok">active</span>`}</td>
          <td>${
            !t.revokedAt && (admin || t.id === selfId)
              ? html`<form class="inline" method="post" action="/tokens/${t.id}/revoke">
                  <input type="hidden" name="_csrf" value="${csrf}" />
                  <button class="danger" type="submit">Revoke</button></form>`
              : ""
          }</td>
        </tr>`,
      )}</tbody></table></div>
    ${
      admin
        ? html`<h3>Create a token</h3>
      <form class="stack" method="post" action="/tokens">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <fieldset><legend>Scopes</legend>
          ${SCOPES.map((s) => html`<label><input type="checkbox" name="scope" value="${s}" ${s === "read" ? "checked" : ""} /> ${s}</label> `)}
        </fieldset>
        <label>Expires (optional) <input type="date" name="expires" /></label>
        <button type="submit">Create token</button>
      </form>`
        : html`<p class="muted small">Tokens are created by tokens with the <code>admin</code> scope.</p>`
    }`;
}

/** `/account`: the team's private envs and its tokens; `created` is a new token's secret, shown once. */
export async function accountPage(c: Context<WebEnv>, created?: { id: string; token: string }) {
  const p = c.get("web").principal;
  if (p.kind !== "token") return c.redirect("/sign-in", 303);
  const db = hubDb(c.env);
  const [envs, tokens] = await Promise.all([
    searchEnvs(db, p.team, { owner: p.team, visibility: "private", limit: 100 }),
    teamTokens(db, p.team),
  ]);
  const body = html`<h1>Team ${p.team}</h1>
    ${
      created
        ? html`<div class="notice new-token" role="status"><strong>New token ${created.id}.</strong> Copy it now: it is shown only once.<br /><code class="secret">${created.token}</code></div>`
        : ""
    }
    <h2>Private environments</h2>
    <p class="small muted">Shares are managed on each environment's page.</p>
    ${envCards(envs.envs, "This team has no private environment.")}
    <h2>API tokens</h2>
    ${tokensView(c, tokens, hasScope(p, "admin"))}`;
  return c.html(layout(c, `Team ${p.team}`, body), created ? 201 : 200);
}

export async function createTokenPost(c: Context<WebEnv>, now: Now) {
  const form = await c.req.parseBody({ all: true });
  await signedForm(c, form);
  const { team, principal } = webTeam(c);
  if (!hasScope(principal, "admin"))
    throw new EdgegymError("forbidden", "tokens are created by the team's admin tokens");
  const raw = form.scope;
  const scopes = (Array.isArray(raw) ? raw : [raw]).filter((s): s is Scope => SCOPES.includes(s as Scope));
  if (scopes.length === 0) throw new EdgegymError("invalid_request", "choose at least one scope");
  const expires = typeof form.expires === "string" && form.expires ? `${form.expires}T00:00:00Z` : undefined;
  if (expires && Number.isNaN(Date.parse(expires)))
    throw new EdgegymError("invalid_request", "expires must be a date");
  const made = await createTeamToken(hubDb(c.env), team, { scopes, expiresAt: expires }, now());
  return accountPage(c, made);
}

export async function revokeTokenPost(c: Context<WebEnv>, now: Now) {
  await signedForm(c);
  const { principal } = webTeam(c);
  await revokeTokenAs(hubDb(c.env), principal, (c.req.param("id") ?? "").slice(0, 64), now());
  return c.redirect("/account", 303);
}

/** `POST /<owner>/<name>/shares`: the API's sharing rules (publish scope, owner team only). */
export async function sharePost(c: Context<WebEnv>, now: Now) {
  const form = await signedForm(c);
  const { team } = requireTeam(webTeam(c).principal, "publish");
  const owner = c.req.param("owner") ?? "";
  const name = c.req.param("name") ?? "";
  const target = Slug.safeParse(form.team);
  const role = Role.safeParse(form.role);
  if (!target.success || !role.success)
    throw new EdgegymError("invalid_request", "give a team name and a role");
  const db = hubDb(c.env);
  await shareEnv(db, await ownedEnv(db, team, owner, name), target.data, role.data, now());
  return c.redirect(`/${owner}/${name}#shares`, 303);
}

export async function unsharePost(c: Context<WebEnv>) {
  await signedForm(c);
  const { team } = requireTeam(webTeam(c).principal, "publish");
  const owner = c.req.param("owner") ?? "";
  const name = c.req.param("name") ?? "";
  const db = hubDb(c.env);
  await unshareEnv(db, await ownedEnv(db, team, owner, name), c.req.param("team") ?? "");
  return c.redirect(`/${owner}/${name}#shares`, 303);
}
