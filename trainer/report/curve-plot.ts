import type { TopLevelSpec } from "vega-lite";

/**
 * The seed legend: dashes with no colour of their own, so its symbols are drawn dark grey through
 * vega's `encode`, which vega-lite passes through but does not type (symbolStrokeColor is overridden).
 */
const DASH_LEGEND = {
  orient: "right",
  symbolType: "stroke",
  symbolStrokeWidth: 2,
  symbolSize: 300,
  encode: { symbols: { update: { stroke: { value: "#444" } } } },
} as { orient: "right" };

/** One RL run's learning curve: its method and seed, and test success at each evaluated iteration. */
export type CurveSeries = {
  method: string;
  seed: number;
  points: readonly { iteration: number; success: number; n: number }[];
};

/** A horizontal line: the SFT policy's success on the same tasks (the curves' iteration 0). */
export type SftLevel = { label: string; success: number };

/**
 * A vega-lite spec of test success against RL iteration: one line per run, coloured by method and
 * dashed by seed, so three seeds of one method read as one colour; each SFT level is a grey
 * horizontal rule with its label, the line RL has to clear.
 */
export function curveSpec(
  series: readonly CurveSeries[],
  sft: readonly SftLevel[],
  title: string,
  subtitle = "",
): TopLevelSpec {
  const values = series.flatMap((s) =>
    s.points.map((p) => ({
      method: s.method,
      seed: `seed ${s.seed}`,
      run: `${s.method} seed ${s.seed}`,
      iteration: p.iteration,
      success: p.success,
      n: p.n,
    })),
  );
  const seeds = [...new Set(series.map((s) => s.seed))].sort((a, b) => a - b).map((s) => `seed ${s}`);
  const iterations = values.map((v) => v.iteration);
  const last = Math.max(1, ...iterations);
  const scale = { domain: [0, last], nice: false };
  const x = {
    field: "iteration",
    type: "quantitative" as const,
    title: "RL iteration",
    scale,
    axis: { format: "d", tickMinStep: 1 },
  };
  const y = {
    field: "success",
    type: "quantitative" as const,
    title: "test success (greedy)",
    scale: { zero: true, nice: true },
    axis: { format: ".2f" },
  };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    // Headless vega estimates text widths generously: a long title would widen the image, so the
    // details go in a smaller subtitle.
    title: { text: title, subtitle, fontSize: 15, subtitleFontSize: 11, anchor: "start" },
    background: "white",
    padding: 16,
    width: 520,
    height: 280,
    layer: [
      {
        data: { values: sft.map((l) => ({ ...l, text: `${l.label} ${l.success.toFixed(3)}` })) },
        layer: [
          { mark: { type: "rule", color: "#888", strokeWidth: 2.5, opacity: 0.6 }, encoding: { y } },
          {
            mark: { type: "text", align: "right", dx: -2, dy: -7, color: "#444", fontSize: 11 },
            encoding: { y, x: { datum: last, type: "quantitative", scale }, text: { field: "text" } },
          },
        ],
      },
      {
        data: { values },
        mark: { type: "line", point: { size: 28 }, strokeWidth: 2 },
        encoding: {
          x,
          y,
          color: { field: "method", type: "nominal", title: "method", legend: { orient: "right" } },
          strokeDash: {
            field: "seed",
            type: "nominal",
            title: "seed",
            sort: seeds,
            legend: DASH_LEGEND,
          },
          detail: { field: "run", type: "nominal" },
          tooltip: [{ field: "run" }, { field: "iteration" }, { field: "success" }, { field: "n" }],
        },
      },
    ],
    config: { view: { stroke: "#ccc" }, axis: { gridColor: "#eee", labelFontSize: 11, titleFontSize: 11 } },
  };
}
