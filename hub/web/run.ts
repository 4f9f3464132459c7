import type { Context } from "hono";
import { html } from "hono/html";
import type { Aggregate } from "../../shared/eval-aggregate.js";
import { hubDb } from "../db.js";
import { type EpisodeView, runEpisodes } from "../evals/episodes.js";
import { loadRun } from "../evals/runs.js";
import { type Html, layout, num, shortHash, when } from "./layout.js";
import { leaderboardHref } from "./leaderboard.js";
import type { WebEnv } from "./session.js";
import { transcriptView } from "./transcript.js";

const PAGE = 20;

function aggregateView(agg: Aggregate | null, tasks: number): Html {
  if (!agg)
    return html`<p class="muted">Running: the aggregate is computed when the run finishes (${tasks} tasks).</p>`;
  return html`<dl class="kv aggregate">
    <dt>mean reward</dt><dd>${num(agg.meanReturn)} ± ${num(agg.stderr)} (s.e.)</dd>
    <dt>success</dt><dd>${(agg.successRate * 100).toFixed(1)}%</dd>
    <dt>tasks</dt><dd>${agg.n}</dd>
    <dt>verified episodes</dt><dd>${agg.verified} of ${agg.n}${agg.verified < agg.n ? " (the rest count as failures)" : ""}</dd>
    <dt>mean steps</dt><dd>${agg.meanSteps === null ? "–" : num(agg.meanSteps, 2)}</dd>
  </dl>`;
}

function episodeView(e: EpisodeView, open: boolean): Html {
  const status = e.receiptStatus.verified
    ? html`<span class="badge ok receipt-status">receipt verified</span>`
    : html`<span class="badge bad receipt-status" title="${e.receiptStatus.error}">receipt not verified</span>`;
  return html`<details class="episode" ${open ? "open" : ""}>
    <summary><strong>task ${e.taskIndex}</strong><span>return ${num(e.return)}</span><span>final reward ${num(e.finalReward)}</span><span>${e.steps} steps</span>${status}</summary>
    <p class="small muted mono">episode ${e.episodeId}</p>
    ${transcriptView(e.trajectory)}
  </details>`;
}

/** `/runs/<id>`: a run's aggregate and its episodes as transcripts, visible to whoever may see the run. */
export async function runPage(c: Context<WebEnv>) {
  const id = (c.req.param("id") ?? "").slice(0, 64);
  const p = c.get("web").principal;
  const team = p.kind === "token" ? p.team : null;
  const db = hubDb(c.env);
  const { run, env, version } = await loadRun(db, id, team);
  const fromTask = Math.max(0, Number.parseInt(c.req.query("from") ?? "0", 10) || 0);
  const page = await runEpisodes(db, run, version, { fromTask, limit: PAGE });
  const model = run.model as Record<string, unknown>;
  const body = html`
    <p class="small"><a href="/${env.owner}/${env.name}">${env.owner}/${env.name}</a> ·
      <a href="${leaderboardHref(env, run.version, run.split)}">leaderboard ${run.version} · ${run.split}</a></p>
    <h1>Run ${run.id}</h1>
    <dl class="kv">
      <dt>model</dt><dd class="model-name">${run.modelName}</dd>
      <dt>environment</dt><dd>${env.owner}/${env.name}@${run.version} ${shortHash(run.contentHash)}</dd>
      <dt>split</dt><dd>${run.split}</dd>
      <dt>team</dt><dd>${run.team}</dd>
      <dt>status</dt><dd>${run.status}${run.public ? " · public" : " · private to its team"}</dd>
      <dt>created</dt><dd>${when(run.createdAt)}</dd>
      ${run.finishedAt ? html`<dt>finished</dt><dd>${when(run.finishedAt)}</dd>` : ""}
    </dl>
    <details><summary class="small muted">model details</summary><pre>${JSON.stringify(model, null, 2)}</pre></details>
    <h2>Aggregate</h2>
    ${aggregateView(run.aggregate as Aggregate | null, run.tasks.length)}
    <h2>Episodes</h2>
    <p class="small muted">${page.total} verified episode${page.total === 1 ? "" : "s"} stored for ${run.tasks.length} tasks; each receipt is checked again against ${env.name}@${run.version}'s public key when this page is drawn.</p>
    ${page.episodes.length === 0 ? html`<p class="muted">No episode stored${fromTask > 0 ? " from this task on" : ""}.</p>` : ""}
    ${page.episodes.map((e, i) => episodeView(e, i === 0 && fromTask === 0))}
    ${page.nextTask !== null ? html`<p><a href="/runs/${run.id}?from=${page.nextTask}">Next episodes</a></p>` : ""}`;
  return c.html(layout(c, `Run ${run.modelName}`, body));
}
