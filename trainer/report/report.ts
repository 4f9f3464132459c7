import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** One metrics.jsonl line: the iteration (an epoch for SFT) and its scalar metrics. */
export type MetricsRow = { iteration: number } & Record<string, number>;

/** One chart of the report: the metrics it draws (key → legend label) and its axes' titles. */
export type ReportPanel = {
  title: string;
  y: string;
  metrics: Readonly<Record<string, string>>;
  /** The x axis title: RL counts iterations, SFT epochs. */
  x?: string;
};

/**
 * The panels, in reading order, under the names the trainers log (trainer/rollout/summary.ts for the
 * episodes, rl/update.ts and algos/policy-loss.ts for the update, sft/run.ts for SFT). A panel with
 * none of its metrics in a run is left out, so an SFT run gets its loss curve and nothing empty.
 */
export const REPORT_PANELS: readonly ReportPanel[] = [
  {
    title: "reward and success",
    y: "per episode",
    metrics: { "reward/mean": "mean return", "reward/success": "success rate" },
  },
  { title: "policy loss", y: "loss", metrics: { "losses/policy": "policy loss" } },
  {
    title: "KL divergence",
    y: "nats per token",
    metrics: { "losses/kl": "KL to reference", "losses/approx_kl": "approx. KL to sampler" },
  },
  {
    title: "clip fraction",
    y: "share of tokens",
    metrics: { "losses/clipfrac": "clipped", "losses/dual_clipfrac": "dual-clipped" },
  },
  { title: "gradient norm", y: "global L2 norm", metrics: { "grad/norm": "gradient norm" } },
  {
    title: "tool calls and steps per episode",
    y: "per episode",
    metrics: { "episode/tool_calls": "tool calls", "episode/steps": "steps" },
  },
  { title: "value loss", y: "loss", metrics: { "losses/value": "value loss" } },
  { title: "SFT loss", y: "cross-entropy per token", x: "epoch", metrics: { "losses/sft": "SFT loss" } },
];

export async function readMetrics(file: string): Promise<MetricsRow[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as MetricsRow);
}

/** The panels that have at least one finite value in `rows`. */
export function reportPanels(rows: readonly MetricsRow[]): ReportPanel[] {
  const has = (key: string) => rows.some((r) => Number.isFinite(r[key]));
  return REPORT_PANELS.filter((p) => Object.keys(p.metrics).some(has));
}

/**
 * A vega-lite spec: one line chart per panel, two to a row, over the iterations in long form
 * (`{iteration, metric, value}` with `metric` the legend label). The x axis shows whole iterations
 * only, from the first to the last, so a 3-iteration run reads 1, 2, 3 and not 1.0, 1.5, 2.0.
 */
export function reportSpec(rows: readonly MetricsRow[], title: string): TopLevelSpec {
  const panels = reportPanels(rows);
  const values = rows.flatMap((r) =>
    panels.flatMap((p) =>
      Object.entries(p.metrics)
        .filter(([key]) => Number.isFinite(r[key]))
        .map(([key, label]) => ({ iteration: r.iteration, metric: label, value: r[key] as number })),
    ),
  );
  const iterations = rows.map((r) => r.iteration);
  const first = Math.min(...iterations);
  // One iteration still gets an axis one unit wide, not a zero-width domain.
  const last = Math.max(...iterations, first + 1);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: title, fontSize: 16, anchor: "start" },
    background: "white",
    padding: 16,
    data: { values },
    columns: 2,
    concat: panels.map((p) => {
      const labels = Object.values(p.metrics);
      const legend = {
        orient: "top",
        direction: "horizontal",
        labelFontSize: 11,
        labelLimit: 200,
        symbolType: "stroke",
        symbolStrokeWidth: 2,
      } as const;
      return {
        title: { text: p.title, fontSize: 13 },
        width: 340,
        height: 170,
        transform: [{ filter: { field: "metric", oneOf: labels } }],
        mark: { type: "line", point: { size: 24 }, strokeWidth: 2 },
        encoding: {
          x: {
            field: "iteration",
            type: "quantitative",
            title: p.x ?? "iteration",
            scale: { domain: [first, last], nice: false },
            axis: { format: "d", tickMinStep: 1, labelFontSize: 11, titleFontSize: 11 },
          },
          y: {
            field: "value",
            type: "quantitative",
            title: p.y,
            scale: { zero: false, nice: true },
            axis: { format: "~g", labelFontSize: 11, titleFontSize: 11, tickCount: 5 },
          },
          color: { field: "metric", type: "nominal", title: null, sort: labels, legend },
          // A dashed second series stays visible where it runs on top of the first (reward = success
          // when rewards are 0 or 1); same field and legend, so vega-lite draws one legend for both.
          strokeDash: { field: "metric", type: "nominal", title: null, sort: labels, legend },
        },
      };
    }),
    resolve: {
      scale: { color: "independent", strokeDash: "independent", y: "independent", x: "independent" },
    },
    config: { view: { stroke: "#ccc" }, axis: { gridColor: "#eee" }, concat: { spacing: 28 } },
  };
}

/** Renders the spec to SVG through vega (headless) and to PNG through resvg. */
export async function renderReport(spec: TopLevelSpec): Promise<{ svg: string; png: Buffer }> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  // Twice the SVG's size, so the axis labels stay sharp when the PNG is viewed full width.
  const png = new Resvg(svg, {
    background: "white",
    fitTo: { mode: "zoom", value: 2 },
    font: { loadSystemFonts: true },
  })
    .render()
    .asPng();
  return { svg, png };
}

/** Writes report.svg and report.png in the run folder from its metrics.jsonl (nothing when it is empty). */
export async function writeReport(runDir: string, title: string): Promise<void> {
  const rows = await readMetrics(join(runDir, "metrics.jsonl"));
  if (rows.length === 0) return;
  const { svg, png } = await renderReport(reportSpec(rows, title));
  await writeFile(join(runDir, "report.svg"), svg);
  await writeFile(join(runDir, "report.png"), png);
}
