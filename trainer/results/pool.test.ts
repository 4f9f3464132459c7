import { describe, expect, it } from "vitest";
import { rate } from "../../shared/eval-aggregate.js";
import type { JobState } from "../pipeline/plan.js";
import { parseRecipe } from "../pipeline/recipe.js";
import {
  difference,
  distinguishingSettings,
  evalSetting,
  fmtDifference,
  type Group,
  methodOf,
  poolSeeds,
  verdict,
  withPaired,
} from "./pool.js";
import type { FinishedRun } from "./run-folders.js";
import { pooledTables } from "./table.js";

type Opts = {
  sft?: string;
  lr?: number;
  resources?: Record<string, unknown>;
  rl?: { success: number; n: number };
  failure?: string;
};

/** A run of `method` with RL seed `seed` on calculator; its SFT evaluation solved 80 of 400 (0.2). */
function run(method: string, seed: number, o: Opts = {}): FinishedRun {
  const parsed = parseRecipe({
    description: "d",
    env: "edgegym/calculator-l1@1.1.0",
    rl: { algorithm: "grpo", seed, ...(o.lr ? { lr: o.lr } : {}), ...o.resources },
    eval: { n: 400 },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  // Older runs recorded names the schema may no longer take ("gae"): set after parsing.
  const recipe = { ...parsed.value, rl: { ...parsed.value.rl, algorithm: method as "grpo" } };
  const agg = (successRate: number, n: number) => ({
    n,
    verified: n,
    meanReturn: successRate,
    successRate,
    stderr: 0,
    meanSteps: 2,
  });
  const state: JobState = {
    recipe: `calculator-${method}-s${seed}`,
    resolved: recipe,
    backend: "wasm",
    sft: { checkpoint: o.sft ?? "/runs/calc-grpo-s1/sft/final", seconds: 1 },
    segments: [],
    evalSft: { runId: "run_sft", model: "m", checkpoint: "c", aggregate: agg(0.2, 400), seconds: 1 },
    ...(o.rl
      ? {
          evalRl: {
            runId: `run_${seed}`,
            model: "m",
            checkpoint: "c",
            aggregate: agg(o.rl.success, o.rl.n),
            seconds: 1,
          },
        }
      : {}),
    ...(o.failure ? { failure: { stage: "rl segment 2", error: o.failure } } : {}),
  };
  return { dir: `/runs/calc-${method}-s${seed}`, state, recipe };
}

describe("pooling RL seeds from one SFT policy", () => {
  it("pools the seeds' episodes and compares them with SFT in standard errors of the difference", () => {
    const groups = poolSeeds([
      run("grpo", 2, { rl: { success: 0.3, n: 400 } }),
      run("grpo", 1, { rl: { success: 0.25, n: 400 } }),
      run("grpo", 3, { rl: { success: 0.35, n: 400 } }),
    ]);
    expect(groups).toHaveLength(1);
    const g = groups[0];
    // Seeds in order, each with its own figure: 0.25·400 = 100, 0.30·400 = 120, 0.35·400 = 140 solved.
    expect(g?.seeds.map((s) => [s.seed, s.rl?.successes])).toEqual([
      [1, 100],
      [2, 120],
      [3, 140],
    ]);
    // Pooled: (100 + 120 + 140) / (3 · 400) = 360 / 1200 = 0.3; se = sqrt(0.3 · 0.7 / 1200) = sqrt(0.000175).
    expect(g?.pooled?.successes).toBe(360);
    expect(g?.pooled?.n).toBe(1200);
    expect(g?.pooled?.p).toBeCloseTo(0.3, 12);
    expect(g?.pooled?.se).toBeCloseTo(0.0132288, 6);
    // SFT: 80 / 400 = 0.2, se² = 0.2 · 0.8 / 400 = 0.0004. Difference 0.1, se = sqrt(0.000175 + 0.0004)
    // = sqrt(0.000575) = 0.0239792; 0.1 / 0.0239792 = 4.170 standard errors.
    expect(g?.sft?.successes).toBe(80);
    expect(g?.vsSft?.d).toBeCloseTo(0.1, 12);
    expect(g?.vsSft?.se).toBeCloseTo(0.0239792, 6);
    expect(g?.vsSft?.k).toBeCloseTo(4.1703, 3);
    expect(g?.vsSft && verdict(g.vsSft)).toBe("beats SFT by 4.2 s.e.");
  });

  it("says when the pooled gain is under 2 standard errors", () => {
    // 88 + 84 + 92 = 264 of 1200 = 0.22; se² = 0.22 · 0.78 / 1200 = 0.000143. Difference 0.02 over
    // sqrt(0.000143 + 0.0004) = sqrt(0.000543) = 0.0233024: 0.858 standard errors.
    const [g] = poolSeeds(
      [0.22, 0.21, 0.23].map((p, i) => run("rloo", i + 1, { rl: { success: p, n: 400 } })),
    );
    expect(g?.pooled?.successes).toBe(264);
    expect(g?.vsSft?.se).toBeCloseTo(0.0233024, 6);
    expect(g?.vsSft?.beats).toBe(false);
    expect(g?.vsSft && verdict(g.vsSft)).toBe("does not beat SFT (0.9 s.e.)");
    // 0.5 vs 0.3 over n 100 each: sqrt(0.25/100 + 0.21/100) = sqrt(0.0046) = 0.0678233 and
    // 0.2 / 0.0678233 = 2.95 beats; 0.4 vs 0.3: sqrt(0.0024 + 0.0021) = 0.0670820, 0.1 / 0.067082 = 1.49 does not.
    expect(difference(rate(50, 100), rate(30, 100)).beats).toBe(true);
    expect(difference(rate(40, 100), rate(30, 100)).beats).toBe(false);
    // Seeds whose mean equals SFT's can leave a difference of −1e−16 in floating point: shown as none.
    const none = { d: -1e-16, se: 0.018, k: -1e-16 / 0.018, beats: false };
    expect(fmtDifference(none)).toBe("+0.000 ± 0.018");
    expect(verdict(none)).toBe("does not beat SFT (0.0 s.e.)");
  });

  it("groups by SFT policy, method and every RL setting but the seed, and drops no seed", () => {
    const groups = poolSeeds([
      run("grpo", 1, { rl: { success: 0.25, n: 400 } }),
      run("grpo", 2, { failure: "out of memory" }),
      // Another SFT policy, another learning rate, and an older run's "gae" (PPO): three more groups.
      run("grpo", 3, { rl: { success: 0.5, n: 400 }, sft: "/runs/other/sft/final" }),
      run("grpo", 4, { rl: { success: 0.5, n: 400 }, lr: 1e-3 }),
      // Another backend and checkpoint interval: still seed 5 of the first group.
      run("grpo", 5, { rl: { success: 0.25, n: 400 }, resources: { backend: "cpu", checkpointEvery: 2 } }),
      run("gae", 1, { rl: { success: 0.3, n: 400 } }),
    ]);
    expect(groups.map((g) => [g.method, g.seeds.map((s) => s.seed)])).toEqual([
      ["grpo", [1, 2, 5]],
      ["grpo", [3]],
      ["grpo", [4]],
      ["ppo", [1]],
    ]);
    // The unfinished seed is listed with where it stopped; the pooled figure is over the finished two.
    const first = groups[0];
    expect(first?.seeds[1]?.stopped).toBe("rl segment 2: out of memory");
    expect(first?.pooled?.n).toBe(800);
    // Rows of one method from one SFT policy name what sets them apart: here the learning rate, the
    // only RL setting that differs (the others have the schema's default, 3e-4). The row from another
    // SFT policy and PPO, the only row of its method, need no label.
    const [seeds, otherSft, fasterLr, ppo] = groups as [Group, Group, Group, Group];
    expect(distinguishingSettings(seeds, groups)).toBe("lr 0.0003");
    expect(distinguishingSettings(fasterLr, groups)).toBe("lr 0.001");
    expect(distinguishingSettings(otherSft, groups)).toBe("");
    expect(distinguishingSettings(ppo, groups)).toBe("");
    expect(methodOf("gae")).toBe("ppo");
    expect(methodOf("steppo")).toBe("steppo");
  });

  it("renders one section per env with every seed on its own line", () => {
    const groups = poolSeeds([
      run("grpo", 1, { rl: { success: 0.25, n: 400 } }),
      run("grpo", 2, { rl: { success: 0.3, n: 400 } }),
      run("grpo", 3, { failure: "a | b" }),
    ]);
    const md = pooledTables(
      groups,
      new Map([["/runs/calc-grpo-s1/sft/final", { dModel: 64, nLayers: 2, params: 117_000 }]]),
      new Map([["edgegym/calculator-l1@1.1.0", { lines: ["400 distinct test tasks"] }]]),
    ).split("\n");
    expect(md[0]).toBe("### edgegym/calculator-l1@1.1.0");
    expect(md[2]).toBe("400 distinct test tasks");
    const row = md.find((l) => l.startsWith("| SFT+GRPO |"))?.split(" | ");
    // Pooled: (100 + 120) / 800 = 0.275, se = sqrt(0.275 · 0.725 / 800) = 0.0157863.
    // Difference 0.075 ± sqrt(0.0157863² + 0.0004) = sqrt(0.00064922) = 0.0254798; 2.94 s.e.
    expect(row?.slice(1, 5)).toEqual([
      "0.200 (n=400)",
      "0.275 ± 0.016 (n=800, 2 of 3 seeds)",
      "+0.075 ± 0.025",
      "beats SFT by 2.9 s.e., from 2 finished seeds (the bar pools 3)",
    ]);
    // No evaluation recorded its outcomes, so there is no paired comparison.
    expect(row?.[5]).toBe("no task-by-task record");
    expect(row?.[6]).toBe(
      "seed 1: 0.250 (n=400) [calc-grpo-s1]<br>seed 2: 0.300 (n=400) [calc-grpo-s2]<br>seed 3: not finished (rl segment 2: a / b) [calc-grpo-s3]",
    );
    expect(row?.[7]).toBe("wasm · d 64 × 2 layers, 117k params");
  });

  it("compares seeds with SFT task by task when every evaluation recorded its outcomes", () => {
    // Four test tasks, 1 and 3 one task. SFT solved 0 1 0 1, seed 1 solved 1 1 0 1, seed 2 1 1 1 1.
    const four = (r: FinishedRun, sft: string, rl?: string): FinishedRun => {
      const recipe = { ...r.recipe, eval: { ...r.recipe.eval, n: 4 } };
      const { evalSft, evalRl } = r.state;
      if (!evalSft || !evalRl) throw new Error("the run has no evaluations");
      return {
        ...r,
        recipe,
        state: {
          ...r.state,
          evalSft: { ...evalSft, outcomes: sft },
          evalRl: { ...evalRl, ...(rl ? { outcomes: rl } : {}) },
        },
      };
    };
    const seeds = [
      four(run("grpo", 1, { rl: { success: 0.75, n: 4 } }), "0101", "1101"),
      four(run("grpo", 2, { rl: { success: 1, n: 4 } }), "0101", "1111"),
    ];
    const [g] = poolSeeds(seeds);
    if (!g) throw new Error("no group");
    const keys = new Map([
      [evalSetting(seeds[0] as FinishedRun), { unit: "tasks", keys: ["a", "b", "c", "b"] }],
    ]);
    // d = (1+1)/2−0, (1+1)/2−1, (0+1)/2−0, (1+1)/2−1 = 1, 0, 0.5, 0; d̄ = 1.5/4 = 0.375.
    // d − d̄ = 0.625, −0.375, 0.125, −0.375; clusters a: 0.625, b: −0.75, c: 0.125, C = 3;
    // Σ S² = 0.390625 + 0.5625 + 0.015625 = 0.96875; se = sqrt(3/2 · 0.96875) / 4 = 0.3014027.
    const paired = withPaired(g, keys).paired;
    expect(paired?.d).toBeCloseTo(0.375, 12);
    expect(paired?.se).toBeCloseTo(Math.sqrt(1.5 * 0.96875) / 4, 12);
    expect(paired?.clusters).toBe(3);
    const row = pooledTables([withPaired(g, keys)], new Map())
      .split("\n")
      .find((l) => l.startsWith("| SFT+GRPO |"))
      ?.split(" | ");
    // k = 0.375 / 0.3014027 = 1.244.
    expect(row?.[5]).toBe("+0.375 ± 0.301 over 3 tasks: does not beat SFT (1.2 s.e.)");
    // Clusters an env declares (webshop's products) are named in the cell.
    const byProduct = new Map([
      [evalSetting(seeds[0] as FinishedRun), { unit: "products", keys: ["a", "b", "c", "b"] }],
    ]);
    const productRow = pooledTables([withPaired(g, byProduct)], new Map())
      .split("\n")
      .find((l) => l.startsWith("| SFT+GRPO |"))
      ?.split(" | ");
    expect(productRow?.[5]).toBe("+0.375 ± 0.301 over 3 products: does not beat SFT (1.2 s.e.)");
    // A seed without a record leaves the group without a paired figure.
    const [partial] = poolSeeds([
      seeds[0] as FinishedRun,
      four(run("grpo", 2, { rl: { success: 1, n: 4 } }), "0101"),
    ]);
    expect(partial && withPaired(partial, keys).paired).toBeUndefined();
  });
});
