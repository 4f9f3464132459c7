import type { Context } from "hono";
import { html } from "hono/html";
import { hubDb } from "../db.js";
import { recentEnvs, searchEnvs } from "../registry/search.js";
import { envCards } from "./env-list.js";
import { layout } from "./layout.js";
import type { WebEnv } from "./session.js";

const RECENT = 12;
const PAGE = 24;

/** Who sees what: the signed-in team sees its own and shared envs too, exactly as the API shows them. */
function teamOf(c: Context<WebEnv>): string | null {
  const p = c.get("web").principal;
  return p.kind === "token" ? p.team : null;
}

/** `/`: what the hub is, search over the envs the visitor may see (the API's FTS), the recent ones. */
export async function homePage(c: Context<WebEnv>) {
  const q = (c.req.query("q") ?? "").slice(0, 200);
  const cursor = /^\d+$/.test(c.req.query("cursor") ?? "") ? c.req.query("cursor") : undefined;
  const db = hubDb(c.env);
  const team = teamOf(c);
  const results = q.trim() ? await searchEnvs(db, team, { q, cursor, limit: PAGE }) : null;
  const recent = results ? [] : await recentEnvs(db, team, RECENT);
  const body = html`
    <h1>Environments for training and evaluating LLM agents</h1>
    <p>
      Each environment here is a tool-use task served over HTTP in the <code>edgegym/v1</code> protocol. Versions are
      immutable and pinned by content hash, private environments can be shared between teams, and every leaderboard
      entry is an evaluation over a fixed task set whose episodes carry receipts signed by the environment.
    </p>
    <form class="search" method="get" action="/" role="search">
      <input type="search" name="q" value="${q}" placeholder="Search environments by name, description or tag" aria-label="Search environments" />
      <button type="submit">Search</button>
    </form>
    ${
      results
        ? html`<h2>Results for “${q}”</h2>
            ${envCards(results.envs, "No environment matches.")}
            ${
              results.nextCursor
                ? html`<p><a href="/?q=${encodeURIComponent(q)}&amp;cursor=${results.nextCursor}">More results</a></p>`
                : ""
            }`
        : html`<h2>Recently updated</h2>
            ${envCards(recent, "No environment has been published yet.")}`
    }`;
  return c.html(layout(c, q ? `Search: ${q}` : "Home", body));
}
