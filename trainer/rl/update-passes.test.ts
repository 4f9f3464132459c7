import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import { PASS_ELEMENTS, passCost, planPasses } from "../model/passes.js";
import type { ModelConfig, PolicyModel } from "../model/types.js";
import type { StepRecord, Trajectory } from "../rollout/types.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import { rlUpdate } from "./update.js";

// The bug only showed on wasm (its heap is capped at 4 GiB), so these run there.
beforeAll(async () => {
  const ready = await initBackend("wasm");
  if (!ready.ok) throw new Error(ready.error);
});

const PAD = 0;
const TINY: Partial<ModelConfig> = {
  vocabSize: 64,
  dModel: 16,
  nLayers: 1,
  nHeads: 2,
  nKvHeads: 2,
  dFf: 32,
  contextLength: 256,
};

function model(valueHead: boolean): PolicyModel {
  const m = createModel({ ...TINY, valueHead }, { seed: 11 });
  if (!m.ok) throw new Error(m.error);
  return m.value;
}

/** One-step episode e of group g with a prompt of `p` ids and a response of `r` ids. */
function episode(e: number, g: number, p: number, r: number, reward: number): Trajectory {
  const ids = (n: number, at: number) => Array.from({ length: n }, (_, i) => 1 + ((at + i * 7 + e) % 60));
  const step: StepRecord = {
    episode: e,
    group: g,
    step: 0,
    promptIds: ids(p, 0),
    responseIds: ids(r, p),
    responseLogprobs: new Array<number>(r).fill(-1),
    action: "",
    toolCalls: 0,
    reward,
    done: true,
    truncated: false,
    info: { reward_components: {} },
    observation: [],
  };
  return {
    episode: e,
    group: g,
    task: { split: "train", index: g },
    steps: [step],
    return: reward,
    success: reward > 0,
    truncated: false,
  };
}

/** n long episodes in groups of 4, half of each group rewarded. */
const longBatch = (n: number) => Array.from({ length: n }, (_, e) => episode(e, e >> 2, 200, 20, e % 2));

const weights = (m: PolicyModel) => m.trainableVariables.map((v) => Array.from(v.dataSync()));

describe("planPasses", () => {
  it("keeps each pass within the budget, sorted by length and trimmed to its longest row", () => {
    const c = model(false).config;
    // Sequence lengths P + R − 1: 10, 40, 20, 40.
    const batch = buildBatch(
      [episode(0, 0, 6, 5, 0), episode(1, 0, 30, 11, 0), episode(2, 0, 15, 6, 0), episode(3, 0, 1, 40, 0)],
      PAD,
    );
    // cost(n, w) = n·w·(L·H·w + 2·V) = n·w·(2w + 128). Budget cost(2, 40) = 80·208 = 16 640.
    // Sorted 10 (row 0), 20 (row 2), 40 (row 1), 40 (row 3): rows 0 and 2 cost 2·20·168 = 6 720;
    // adding row 1 would cost 3·40·208 = 24 960 > 16 640, so it starts a pass that row 3 joins (16 640).
    expect(planPasses(batch.lengths, [0, 1, 2, 3], c, passCost(c, 2, 40))).toEqual([
      { rows: [0, 2], width: 20 },
      { rows: [1, 3], width: 40 },
    ]);
    // A row over budget still gets a pass of its own.
    expect(planPasses(batch.lengths, [1, 0], c, 1)).toEqual([
      { rows: [0], width: 10 },
      { rows: [1], width: 40 },
    ]);
  });
});

describe("rlUpdate on wasm", () => {
  it("holds the peak memory of an update near that of one pass, however many rows the batch has", async () => {
    const c = model(false).config;
    // Two rows of width 219 per pass.
    const passElements = passCost(c, 2, 219);
    const peak = async (episodes: number) => {
      const m = model(false);
      const config = TrainConfig.parse({ algorithm: "grpo" });
      const base = tf.memory().numBytes;
      const info = await tf.profile(async () => {
        await rlUpdate(
          { model: m, optimizer: tf.train.sgd(0.1), config, pad: PAD, passElements },
          longBatch(episodes),
        );
      });
      m.dispose();
      return info.peakBytes - base;
    };
    const two = await peak(2);
    const sixteen = await peak(16);
    // One pass over all 16 rows would hold 8× the attention activations of a 2-row pass.
    expect(sixteen).toBeLessThan(1.5 * two);
  });

  for (const [name, algorithm, aggregation, valueHead] of [
    ["grpo, token-mean", "grpo", "token-mean", false],
    ["grpo, seq-mean-token-sum", "grpo", "seq-mean-token-sum", false],
    ["gae with a value head, seq-mean-token-mean", "gae", "seq-mean-token-mean", true],
  ] as const) {
    it(`${name}: accumulating one row per pass gives the one-pass update and metrics`, async () => {
      // Different lengths, and a row with an empty response (it trains nothing).
      const trajectories = [
        episode(0, 0, 5, 4, 1),
        episode(1, 0, 9, 7, 0),
        episode(2, 1, 3, 12, 1),
        episode(3, 1, 12, 0, 0),
        episode(4, 1, 7, 3, 0),
      ];
      const run = async (passElements: number) => {
        const m = model(valueHead);
        const before = weights(m);
        const config = TrainConfig.parse({ algorithm, aggregation, entropyCoef: 0.01 });
        const out = await rlUpdate(
          { model: m, optimizer: tf.train.sgd(1), config, pad: PAD, passElements },
          trajectories,
        );
        const after = weights(m);
        m.dispose();
        return { out, delta: after.map((w, i) => w.map((x, j) => x - (before[i]?.[j] ?? 0))) };
      };
      const one = await run(Number.POSITIVE_INFINITY);
      const perRow = await run(1);
      // SGD: the weight change is −lr·clip(g), so equal changes mean equal gradients.
      let biggest = 0;
      one.delta.forEach((w, i) => {
        w.forEach((d, j) => {
          biggest = Math.max(biggest, Math.abs(d));
          expect(perRow.delta[i]?.[j]).toBeCloseTo(d, 5);
        });
      });
      expect(biggest).toBeGreaterThan(1e-4);
      for (const [k, v] of Object.entries(one.out.metrics)) expect(perRow.out.metrics[k]).toBeCloseTo(v, 5);
      if (valueHead) expect(one.out.metrics["losses/value"]).toBeGreaterThan(0);
    });
  }

  it("takes no optimizer step on a batch without response tokens", async () => {
    const m = model(false);
    const before = weights(m);
    const optimizer = tf.train.adam(1e-2);
    const config = TrainConfig.parse({ algorithm: "grpo" });
    const out = await rlUpdate({ model: m, optimizer, config, pad: PAD }, [
      episode(0, 0, 8, 0, 1),
      episode(1, 0, 8, 0, 0),
    ]);
    expect(optimizer.iterations).toBe(0);
    expect(weights(m)).toEqual(before);
    expect(out.metrics).toEqual({});
  });

  it("defaults to a budget that splits the batch that exhausted the wasm heap", () => {
    // The crashing code-env update: 29 rows of width 619, L = 2, H = 4, V = 268:
    // 29·619·(2·4·619 + 2·268) = 17 951·5 488 = 98 515 088 elements > 2²⁵ = 33 554 432.
    const code = { ...model(false).config, nLayers: 2, nHeads: 4, vocabSize: 268 };
    expect(passCost(code, 29, 619)).toBe(98_515_088);
    expect(passCost(code, 29, 619)).toBeGreaterThan(PASS_ELEMENTS);
  });
});
