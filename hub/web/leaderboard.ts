import type { Context } from "hono";
import { html } from "hono/html";
import { hubDb } from "../db.js";
import { type LeaderboardEntry, leaderboardOf, minTasksOf } from "../evals/leaderboard.js";
import type { EnvRow } from "../registry/access.js";
import { envWithVersions } from "../registry/detail.js";
import { manifestOf, resolveVersion, type VersionRow } from "../registry/resolve.js";
import { scoreChart } from "./chart.js";
import { type Html, layout, num, when } from "./layout.js";
import type { WebEnv } from "./session.js";

const teamOf = (c: Context<WebEnv>) => {
  const p = c.get("web").principal;
  return p.kind === "token" ? p.team : null;
};

/** The split a leaderboard shows unless asked: `test` when the env has one, else its first split. */
export function defaultSplit(version: VersionRow): string {
  const splits = Object.keys(manifestOf(version).splits);
  return splits.includes("test") ? "test" : (splits[0] ?? "test");
}

export const leaderboardHref = (env: EnvRow, version: string, split: string) =>
  `/${env.owner}/${env.name}/leaderboard?version=${encodeURIComponent(version)}&split=${encodeURIComponent(split)}`;

/** The leaderboard's table and chart: model, success, mean reward ± s.e., n, verified, date. */
export function leaderboardView(
  entries: readonly LeaderboardEntry[],
  version: VersionRow,
  minTasks: number,
): Html {
  if (entries.length === 0) {
    return html`<p class="muted">No finished evaluation run of at least ${minTasks} tasks yet.</p>`;
  }
  const reward = manifestOf(version).reward;
  return html`<div class="scroll"><table class="leaderboard">
      <thead><tr><th class="num">#</th><th>model</th><th class="num">success</th><th class="num">mean reward ± s.e.</th>
        <th class="num">n</th><th class="num">verified</th><th>team</th><th>date</th></tr></thead>
      <tbody>
        ${entries.map(
          (e) => html`<tr>
            <td class="num">${e.rank}</td>
            <td><a href="/runs/${e.runId}">${e.model}</a></td>
            <td class="num">${(e.successRate * 100).toFixed(1)}%</td>
            <td class="num">${num(e.meanReturn)} ± ${num(e.stderr)}</td>
            <td class="num">${e.n}</td>
            <td class="num">${e.verified}</td>
            <td>${e.team}</td>
            <td>${when(e.finishedAt)}</td>
          </tr>`,
        )}
      </tbody>
    </table></div>
    ${scoreChart(
      entries.map((e) => ({
        label: e.model,
        mean: e.meanReturn,
        stderr: e.stderr,
        href: `/runs/${e.runId}`,
      })),
      reward,
    )}`;
}

/** Links to the leaderboards of every split of `version`, the current one marked. */
export function splitLinks(env: EnvRow, version: VersionRow, current: string): Html {
  return html`<p class="small">Split:
    ${Object.keys(manifestOf(version).splits).map((s) =>
      s === current
        ? html` <strong>${s}</strong>`
        : html` <a href="${leaderboardHref(env, version.version, s)}">${s}</a>`,
    )}</p>`;
}

/** `/<owner>/<name>/leaderboard?version=&split=`: one version and split's leaderboard. */
export async function leaderboardPage(c: Context<WebEnv>) {
  const owner = c.req.param("owner") ?? "";
  const name = c.req.param("name") ?? "";
  const db = hubDb(c.env);
  const team = teamOf(c);
  const { env, versions, latest } = await envWithVersions(db, team, owner, name);
  const asked = c.req.query("version") ?? latest?.version ?? versions.at(-1)?.version ?? "latest";
  const version = await resolveVersion(db, env, asked.slice(0, 128));
  const split = (c.req.query("split") ?? defaultSplit(version)).slice(0, 64);
  const minTasks = minTasksOf(undefined, c.env.HUB_LEADERBOARD_MIN_TASKS);
  const entries = await leaderboardOf(db, { env, version: version.version, split, minTasks, team });
  const body = html`
    <p class="small"><a href="/${env.owner}/${env.name}">${env.owner}/${env.name}</a></p>
    <h1>Leaderboard · ${env.name}@${version.version} · ${split}</h1>
    <p class="muted small">The best finished run of each model on this version and split, over at least ${minTasks} tasks.
      Tasks without a verified episode count as failures.</p>
    <p class="small">Version:
      ${versions.map((v) =>
        v.version === version.version
          ? html` <strong>${v.version}</strong>`
          : html` <a href="${leaderboardHref(env, v.version, split)}">${v.version}</a>`,
      )}</p>
    ${splitLinks(env, version, split)}
    ${leaderboardView(entries, version, minTasks)}`;
  return c.html(layout(c, `Leaderboard ${env.owner}/${env.name}`, body));
}
