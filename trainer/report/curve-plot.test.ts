import { describe, expect, it } from "vitest";
import { curveSpec } from "./curve-plot.js";
import { renderReport } from "./report.js";

describe("the learning-curve plot", () => {
  it("draws a line per run coloured by method and dashed by seed, and the SFT level as a rule", async () => {
    const points = (a: number, b: number) => [
      { iteration: 0, success: a, n: 10 },
      { iteration: 10, success: b, n: 10 },
    ];
    const spec = curveSpec(
      [
        { method: "SFT+GRPO", seed: 10, points: points(0.2, 0.4) },
        { method: "SFT+GRPO", seed: 2, points: points(0.2, 0.3) },
        { method: "SFT+PPO", seed: 1, points: points(0.2, 0.25) },
      ],
      [{ label: "SFT", success: 0.2 }],
      "edgegym/calculator-l1@1.0.0",
      "tasks 0..9",
    );
    const layers = (spec as { layer: { data: { values: Record<string, unknown>[] } }[] }).layer;
    const [rule, lines] = layers;
    expect(rule?.data.values).toEqual([{ label: "SFT", success: 0.2, text: "SFT 0.200" }]);
    // 3 runs × 2 points, each tagged with its run so that seeds of one method stay separate lines.
    expect(lines?.data.values).toHaveLength(6);
    expect(lines?.data.values[2]).toEqual({
      method: "SFT+GRPO",
      seed: "seed 2",
      run: "SFT+GRPO seed 2",
      iteration: 0,
      success: 0.2,
      n: 10,
    });
    // Seeds in numeric order in the legend (seed 2 before seed 10).
    expect(JSON.stringify(spec)).toContain('"sort":["seed 1","seed 2","seed 10"]');
    const { svg, png } = await renderReport(spec);
    expect(svg).toContain("SFT 0.200");
    expect(svg).toContain("SFT+PPO");
    // PNG signature.
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });
});
