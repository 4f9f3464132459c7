import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { SftConfig } from "../sft/config.js";
import { runSft } from "../sft/run.js";
import { type MetricsRow, REPORT_PANELS, reportPanels, reportSpec, writeReport } from "./report.js";

/** An RL metrics line with every curve the report draws, as trainer/rl/run.ts logs it. */
const rlRow = (i: number): MetricsRow => ({
  iteration: i,
  "reward/mean": i / 4,
  "reward/success": i / 5,
  "losses/policy": -0.1 * i,
  "losses/kl": 0.01 * i,
  "losses/approx_kl": 0.001 * i,
  "losses/clipfrac": 0.02,
  "losses/dual_clipfrac": 0,
  "grad/norm": 0.5,
  "episode/tool_calls": 1.5,
  "episode/steps": 2.5,
  "perf/train_tokens_per_s": 700,
});

type Panel = {
  title: { text: string };
  transform: { filter: { oneOf: string[] } }[];
  encoding: {
    x: { title: string; scale: { domain: number[] }; axis: { format: string; tickMinStep: number } };
  };
};
const panelsOf = (spec: unknown) => (spec as { concat: Panel[] }).concat;

describe("run report", () => {
  it("draws reward and success, policy loss, KL, clip fraction, gradient norm, and tool calls and steps", () => {
    const spec = reportSpec([1, 2, 3].map(rlRow), "t");
    expect(panelsOf(spec).map((p) => p.title.text)).toEqual([
      "reward and success",
      "policy loss",
      "KL divergence",
      "clip fraction",
      "gradient norm",
      "tool calls and steps per episode",
    ]);
    // Long form, one point per metric per iteration, labelled for the legend; perf/* is not drawn.
    const values = (spec as { data: { values: { iteration: number; metric: string; value: number }[] } }).data
      .values;
    // 3 iterations x 10 drawn metrics (2 + 1 + 2 + 2 + 1 + 2) = 30 points.
    expect(values).toHaveLength(30);
    expect(values.filter((v) => v.iteration === 2).slice(0, 3)).toEqual([
      { iteration: 2, metric: "mean return", value: 0.5 },
      { iteration: 2, metric: "success rate", value: 0.4 },
      { iteration: 2, metric: "policy loss", value: -0.2 },
    ]);
  });

  it("labels the x axis with whole iterations only, from the first to the last", () => {
    for (const p of panelsOf(reportSpec([1, 2, 3].map(rlRow), "t"))) {
      expect(p.encoding.x.title).toBe("iteration");
      // "d" prints integers; a minimum tick step of 1 keeps vega from placing ticks at 1.5, 2.5, ...
      expect(p.encoding.x.axis).toMatchObject({ format: "d", tickMinStep: 1 });
      expect(p.encoding.x.scale.domain).toEqual([1, 3]);
    }
    // One iteration still gets an axis one unit wide: 1 to 1 + 1 = 2.
    expect(panelsOf(reportSpec([rlRow(1)], "t"))[0]?.encoding.x.scale.domain).toEqual([1, 2]);
  });

  it("gives an SFT run (losses/sft per epoch) a loss curve over epochs and no empty panels", () => {
    const rows = [1, 2, 3].map((e) => ({
      iteration: e,
      "losses/sft": 3 / e,
      "perf/train_tokens_per_s": 900,
    }));
    const panels = panelsOf(reportSpec(rows, "sft"));
    expect(panels.map((p) => p.title.text)).toEqual(["SFT loss"]);
    expect(panels[0]?.encoding.x.title).toBe("epoch");
    expect(panels[0]?.transform[0]?.filter.oneOf).toEqual(["SFT loss"]);
    // A run without a reference model logs no losses/kl: the KL panel keeps the approximate KL only.
    const { "losses/kl": _, ...noKl } = rlRow(1);
    expect(reportPanels([noKl as MetricsRow]).map((p) => p.title)).toContain("KL divergence");
    expect(REPORT_PANELS.map((p) => p.title)).toContain("value loss");
  });

  it("writes report.svg and a PNG with every panel from metrics.jsonl", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-report-"));
    await writeFile(
      join(dir, "metrics.jsonl"),
      `${[1, 2, 3].map((i) => JSON.stringify(rlRow(i))).join("\n")}\n`,
    );
    await writeReport(dir, "calculator grpo");
    const svg = await readFile(join(dir, "report.svg"), "utf8");
    for (const text of ["reward and success", "gradient norm", "clip fraction", "tool calls", "success rate"])
      expect(svg).toContain(text);
    const png = await readFile(join(dir, "report.png"));
    expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
    // Two panels a row, three rows, drawn at twice the SVG's size: wider than 1,000 pixels.
    expect(png.readUInt32BE(16)).toBeGreaterThan(1000);
  });

  it("an SFT run writes its loss curve beside its metrics", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "edgegym-sft-report-")), "sft");
    const tiny = { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 };
    const sft = await runSft(SftConfig.parse({ out, backend: "cpu", episodes: 2, epochs: 2, model: tiny }), {
      log: () => {},
      saveCheckpoint,
      loadCheckpoint,
    });
    if (!sft.ok) throw new Error(sft.error);
    const svg = await readFile(join(out, "report.svg"), "utf8");
    expect(svg).toContain("SFT loss");
    expect(svg).toContain("epoch");
    expect((await readFile(join(out, "report.png"))).subarray(1, 4).toString()).toBe("PNG");
  }, 120_000);
});
