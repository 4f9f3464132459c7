import { html } from "hono/html";
import type { Html } from "./layout.js";
import { num } from "./layout.js";

export type ChartRow = { label: string; mean: number; stderr: number; href: string };

const W = 640;
const LABEL = 190;
const RIGHT = 70;
const ROW = 28;
const TOP = 10;
const AXIS = 30;

const cutLabel = (s: string) => (s.length > 26 ? `${s.slice(0, 25)}…` : s);

/**
 * Each run's mean reward as a dot with a ±1 standard error bar, on an axis from the env's minimum to
 * its maximum reward, drawn as SVG on the server (no script). Labels are text nodes, so `html`
 * escapes them like any other user text.
 */
export function scoreChart(rows: readonly ChartRow[], range: { min: number; max: number }): Html {
  if (rows.length === 0) return html``;
  const lo = Math.min(range.min, ...rows.map((r) => r.mean - r.stderr));
  const hi = Math.max(range.max, ...rows.map((r) => r.mean + r.stderr));
  const span = hi - lo || 1;
  const x = (v: number) => LABEL + ((v - lo) / span) * (W - LABEL - RIGHT);
  const h = TOP + rows.length * ROW + AXIS;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => lo + f * span);
  return html`<svg class="chart" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="mean reward of each run with its standard error">
    ${ticks.map(
      (t) => html`<line x1="${x(t)}" x2="${x(t)}" y1="${TOP}" y2="${h - AXIS}" stroke="#d8dee4" />
        <text x="${x(t)}" y="${h - AXIS + 16}" font-size="11" text-anchor="middle" fill="#57606a">${num(t, 2)}</text>`,
    )}
    ${rows.map((r, i) => {
      const y = TOP + i * ROW + ROW / 2;
      return html`<a href="${r.href}">
        <title>${r.label}: ${num(r.mean)} ± ${num(r.stderr)}</title>
        <text x="${LABEL - 8}" y="${y + 4}" font-size="12" text-anchor="end" fill="#1b1f24">${cutLabel(r.label)}</text>
        <line x1="${x(r.mean - r.stderr)}" x2="${x(r.mean + r.stderr)}" y1="${y}" y2="${y}" stroke="#0a5bd3" stroke-width="2" />
        <line x1="${x(r.mean - r.stderr)}" x2="${x(r.mean - r.stderr)}" y1="${y - 5}" y2="${y + 5}" stroke="#0a5bd3" stroke-width="2" />
        <line x1="${x(r.mean + r.stderr)}" x2="${x(r.mean + r.stderr)}" y1="${y - 5}" y2="${y + 5}" stroke="#0a5bd3" stroke-width="2" />
        <circle cx="${x(r.mean)}" cy="${y}" r="4.5" fill="#0a5bd3" />
        <text x="${W - RIGHT + 6}" y="${y + 4}" font-size="11" fill="#57606a">${num(r.mean)}</text>
      </a>`;
    })}
    <text x="${(LABEL + W - RIGHT) / 2}" y="${h - 2}" font-size="11" text-anchor="middle" fill="#57606a">mean reward ± 1 s.e.</text>
  </svg>`;
}
