import type { Context } from "hono";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { HostedInfo } from "../../shared/hosted.js";
import { hubDb } from "../db.js";
import { leaderboardOf, minTasksOf } from "../evals/leaderboard.js";
import { readSource } from "../hosted/store.js";
import type { EnvRow } from "../registry/access.js";
import { envWithVersions } from "../registry/detail.js";
import { manifestOf, type VersionRow, versionInfo } from "../registry/resolve.js";
import { sharesOf } from "../registry/shares.js";
import { type Html, layout, shortHash, when } from "./layout.js";
import { defaultSplit, leaderboardHref, leaderboardView, splitLinks } from "./leaderboard.js";
import { schemaView } from "./schema-view.js";
import type { WebEnv } from "./session.js";

/**
 * The origin the card's URLs start with. Never the request's `Host` (anyone can send one, and a page
 * that rebinds its DNS name to a local hub would have its own name shown as the MCP URL that readers
 * paste, token and all): `HUB_ORIGIN` when set; a hub reached on a loopback address, which no other
 * site can name, that address; otherwise no origin, and the URLs are shown as paths on this hub.
 */
export function hubOrigin(c: Context<WebEnv>): string {
  const configured = c.env.HUB_ORIGIN;
  if (configured && URL.canParse(configured)) return new URL(configured).origin;
  const url = new URL(c.req.url);
  return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname) ? url.origin : "";
}

/** The ways to reach one version: `hub://` for the trainer, the gateway base, and its MCP endpoint. */
function howToUse(origin: string, env: EnvRow, v: VersionRow, split: string): Html {
  const ref = `${env.owner}/${env.name}@${v.version}`;
  return html`${origin ? "" : html`<p class="small muted">URLs are paths on this hub (its operator has not set <code>HUB_ORIGIN</code>).</p>`}<dl class="kv">
    <dt>hub URL</dt><dd><code>hub://${ref}</code></dd>
    <dt>evaluate</dt><dd><code>npx edgegym eval --env hub://${ref} --policy &lt;checkpoint or openai:URL&gt; --split ${split} --upload</code></dd>
    <dt>MCP (Streamable HTTP)</dt><dd><code class="mcp-url">${origin}/v1/envs/${ref}/mcp</code></dd>
    <dt>edgegym/v1 base</dt><dd><code>${origin}/v1/envs/${ref}</code></dd>
  </dl>
  <p class="small muted">Calls through the hub need <code>Authorization: Bearer &lt;token&gt;</code>${env.visibility === "public" ? " except reads of public envs" : ""}.</p>`;
}

function versionsTable(env: EnvRow, versions: readonly VersionRow[], current: VersionRow): Html {
  return html`<div class="scroll"><table class="versions">
    <thead><tr><th>version</th><th>content hash</th><th>served from</th><th>published</th><th>status</th></tr></thead>
    <tbody>${[...versions].reverse().map(
      (v) => html`<tr>
        <td>${v.version === current.version ? html`<strong>${v.version}</strong>` : html`<a href="/${env.owner}/${env.name}?version=${encodeURIComponent(v.version)}">${v.version}</a>`}</td>
        <td>${shortHash(v.contentHash)}</td>
        <td>${servedFrom(v)}</td>
        <td>${when(v.createdAt)}</td>
        <td>${v.yankedAt ? html`<span class="badge bad">yanked ${when(v.yankedAt)}</span>` : v.prerelease ? html`<span class="badge">prerelease</span>` : html`<span class="badge ok">active</span>`}</td>
      </tr>`,
    )}</tbody></table></div>`;
}

/** Where a version's code runs: this hub (a pushed bundle), a built-in, or its publisher's endpoint. */
function servedFrom(v: VersionRow): Html {
  const source = versionInfo(v).source;
  if (source === "hosted") return html`<span class="badge ok">hosted</span>`;
  return html`${source === "builtin" ? "built-in" : "endpoint"}`;
}

/** `1.9 MiB`, `12.4 KiB`, `980 B`. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A hosted version's code as pushed: each text module read-only in a <pre> (escaped like every
 * value on these pages: a bundle is its publisher's text, never markup), binary modules by size.
 */
async function sourceView(c: Context<WebEnv>, info: HostedInfo): Promise<HtmlEscapedString> {
  const source = await readSource(c.env, info.bundleHash);
  const bytes = new Map(info.modules.map((m) => [m.name, m.bytes]));
  const sized = (name: string) => size(bytes.get(name) ?? 0);
  return html`<div id="source">${source.modules.map((m) =>
    m.type === "data"
      ? html`<p class="module"><code>${m.name}</code> · binary, ${sized(m.name)}, not shown</p>`
      : html`<details class="module" open><summary><code>${m.name}</code> · ${m.type} · ${sized(m.name)}</summary><pre class="source">${m.content}</pre></details>`,
  )}</div>`;
}

/**
 * What runs for a hosted version: its bundle's hash, size and modules, and, when asked
 * (`?source=1`, since a bundle may be megabytes), its source.
 */
async function hostedView(c: Context<WebEnv>, env: EnvRow, v: VersionRow): Promise<Html> {
  const info = v.hosted as HostedInfo | null;
  if (!v.bundleHash || !info) return html``;
  const showSource = c.req.query("source") === "1";
  const href = `/${env.owner}/${env.name}?version=${encodeURIComponent(v.version)}&source=1#source`;
  return html`<h2 id="hosted">Hosted code</h2>
    <p>This version's code was pushed with <code>edgegym push</code> and runs on this hub, in a sandboxed isolate of its own${info.outbound.length === 0 ? ", with no network" : ""}.</p>
    <dl class="kv">
      <dt>bundle hash</dt><dd><code>${info.bundleHash}</code></dd>
      <dt>size</dt><dd>${size(info.bytes)} in ${info.modules.length} modules</dd>
      <dt>main module</dt><dd><code>${info.mainModule}</code></dd>
      <dt>outbound hosts</dt><dd>${info.outbound.length === 0 ? "none" : info.outbound.join(", ")}</dd>
    </dl>
    <div class="scroll"><table class="modules"><thead><tr><th>module</th><th>type</th><th class="num">size</th></tr></thead>
    <tbody>${info.modules.map((m) => html`<tr><td><code>${m.name}</code></td><td>${m.type}</td><td class="num">${size(m.bytes)}</td></tr>`)}</tbody></table></div>
    ${showSource ? sourceView(c, info) : html`<p><a href="${href}">Show the source</a> (read-only)</p>`}`;
}

function toolsView(v: VersionRow): Html {
  const m = manifestOf(v);
  return html`${m.tools.map(
    (t) => html`<section class="tool" id="tool-${t.function.name}">
      <h3><code>${t.function.name}</code></h3>
      <p>${t.function.description}</p>
      ${schemaView(t.function.parameters)}
    </section>`,
  )}`;
}

function splitsAndLimits(v: VersionRow): Html {
  const m = manifestOf(v);
  return html`<div class="scroll"><table class="splits"><thead><tr><th>split</th><th class="num">tasks</th></tr></thead>
    <tbody>${Object.entries(m.splits).map(([s, n]) => html`<tr><td>${s}</td><td class="num">${n}</td></tr>`)}</tbody></table></div>
    <dl class="kv">
      <dt>max steps</dt><dd>${m.limits.maxSteps}</dd>
      <dt>max action characters</dt><dd>${m.limits.maxActionChars}</dd>
      <dt>step timeout</dt><dd>${m.limits.stepTimeoutMs} ms</dd>
      <dt>session lifetime</dt><dd>${m.limits.sessionTtlSeconds} s</dd>
      <dt>reward range</dt><dd>${m.reward.min} to ${m.reward.max}</dd>
      <dt>tool-call format</dt><dd>${m.toolCallFormat}</dd>
    </dl>`;
}

/** Owners manage shares here; every form carries the session's CSRF token. */
async function sharesView(c: Context<WebEnv>, env: EnvRow): Promise<HtmlEscapedString> {
  const csrf = c.get("web").csrf ?? "";
  const shares = await sharesOf(hubDb(c.env), env);
  const action = `/${env.owner}/${env.name}/shares`;
  return html`<h2 id="shares">Shares</h2>
    ${
      shares.length === 0
        ? html`<p class="muted">Not shared with any team.</p>`
        : html`<div class="scroll"><table class="shares"><thead><tr><th>team</th><th>role</th><th>since</th><th></th></tr></thead><tbody>
          ${shares.map(
            (s) => html`<tr><td>${s.team}</td><td>${s.role}</td><td>${when(s.createdAt)}</td><td>
              <form class="inline" method="post" action="${action}/${s.team}/revoke">
                <input type="hidden" name="_csrf" value="${csrf}" />
                <button class="danger" type="submit">Revoke</button>
              </form></td></tr>`,
          )}</tbody></table></div>`
    }
    <form class="stack" method="post" action="${action}">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <label>Team <input name="team" required pattern="[a-z0-9-]{1,64}" placeholder="other-team" /></label>
      <label>Role <select name="role"><option value="read">read</option><option value="publish">publish</option></select></label>
      <button type="submit">Share</button>
    </form>`;
}

/** `/<owner>/<name>`: the env's card; a private env is the same 404 as an unknown one to other teams. */
export async function envCardPage(c: Context<WebEnv>) {
  const owner = c.req.param("owner") ?? "";
  const name = c.req.param("name") ?? "";
  const p = c.get("web").principal;
  const team = p.kind === "token" ? p.team : null;
  const db = hubDb(c.env);
  const { env, access, versions, latest } = await envWithVersions(db, team, owner, name);
  const asked = c.req.query("version");
  const current = versions.find((v) => v.version === asked) ?? latest ?? versions.at(-1) ?? null;
  const origin = hubOrigin(c);
  const split = current ? defaultSplit(current) : "test";
  const minTasks = minTasksOf(undefined, c.env.HUB_LEADERBOARD_MIN_TASKS);
  const entries = current
    ? await leaderboardOf(db, { env, version: current.version, split, minTasks, team })
    : [];
  const body = html`
    <h1>${env.owner}/${env.name} ${env.visibility === "private" ? html`<span class="badge">private</span>` : ""}</h1>
    <p class="description">${env.description}</p>
    <div>${env.tags ? env.tags.split(" ").map((t) => html`<span class="tag">${t}</span>`) : ""}</div>
    ${
      current
        ? html`
      <h2>How to use ${env.name}@${current.version}</h2>${howToUse(origin, env, current, split)}
      <h2>Versions</h2>${versionsTable(env, versions, current)}
      <h2>Tools</h2>${toolsView(current)}
      <h2>Splits and limits</h2>${splitsAndLimits(current)}
      ${await hostedView(c, env, current)}
      <h2>Leaderboard · ${current.version} · ${split}</h2>
      ${splitLinks(env, current, split)}
      ${leaderboardView(entries, current, minTasks)}
      <p class="small"><a href="${leaderboardHref(env, current.version, split)}">Full leaderboard with every version and split</a></p>`
        : html`<p class="muted">No version has been published yet.</p>`
    }
    ${env.readme ? html`<h2>Readme</h2><pre class="readme">${env.readme}</pre>` : ""}
    ${access === "owner" ? sharesView(c, env) : ""}`;
  return c.html(layout(c, `${env.owner}/${env.name}`, body));
}
