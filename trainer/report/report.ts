import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** One metrics.jsonl line: the iteration and its scalar metrics. */
export type MetricsRow = { iteration: number } & Record<string, number>;

/** Curves drawn in the report, by metric key. */
export const REPORT_METRICS = ["reward/mean", "reward/success"] as const;

export async function readMetrics(file: string): Promise<MetricsRow[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as MetricsRow);
}

/** A vega-lite spec with one line per report metric over iterations, in long form. */
export function reportSpec(rows: readonly MetricsRow[], title: string): TopLevelSpec {
  const values = rows.flatMap((r) =>
    REPORT_METRICS.filter((m) => typeof r[m] === "number").map((metric) => ({
      iteration: r.iteration,
      metric,
      value: r[metric],
    })),
  );
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: 480,
    height: 240,
    background: "white",
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "iteration", type: "quantitative", title: "iteration" },
      y: { field: "value", type: "quantitative", title: "reward / success rate" },
      color: { field: "metric", type: "nominal", title: null },
    },
  };
}

/** Renders the spec to SVG through vega (headless) and to PNG through resvg. */
export async function renderReport(spec: TopLevelSpec): Promise<{ svg: string; png: Buffer }> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  const png = new Resvg(svg, { background: "white", font: { loadSystemFonts: true } }).render().asPng();
  return { svg, png };
}

/** Writes report.svg and report.png in the run folder from its metrics.jsonl. */
export async function writeReport(runDir: string, title: string): Promise<void> {
  const rows = await readMetrics(join(runDir, "metrics.jsonl"));
  const { svg, png } = await renderReport(reportSpec(rows, title));
  await writeFile(join(runDir, "report.svg"), svg);
  await writeFile(join(runDir, "report.png"), png);
}
