import * as tf from "@tensorflow/tfjs-core";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { TrainConfig } from "../rl/config.js";
import { useCpu } from "../testing/test-backend.js";
import { advantageEstimators, policyLosses } from "./index.js";
import { ESTIMATOR_CRITICS } from "./names.js";
import {
  METHOD_ALIASES,
  METHODS,
  type Method,
  type MethodName,
  resolveMethod,
  sameMethod,
} from "./registry.js";

beforeAll(useCpu);
afterEach(() => {
  vi.doUnmock("./registry.js");
  vi.resetModules();
});

const names = Object.keys(METHODS) as MethodName[];
/** The config with no method named: grpo and the schema's own defaults. */
const base = TrainConfig.parse({});

/**
 * Two one-step episodes of one group, two response tokens each, the first rewarded 1 at its last
 * token; with the value head's values (all 0) only when `withValues`.
 */
function tinyInput(withValues: boolean) {
  return {
    tokenRewards: tf.tensor2d([
      [0, 1],
      [0, 0],
    ]),
    mask: tf.tensor2d([
      [1, 1],
      [1, 1],
    ]),
    groups: [0, 0],
    ...(withValues
      ? {
          values: tf.zeros([2, 2]) as tf.Tensor2D,
          stepValues: tf.zeros([2, 1]) as tf.Tensor2D,
          tokenStep: tf.tensor2d([0, 0, 0, 0], [2, 2], "int32"),
        }
      : {}),
  };
}
const OPTS = { gamma: 1, lambda: 1, eps: 1e-6, whiten: true };

describe("the method registry", () => {
  it("covers the methods the trainer offers", () => {
    expect(names.sort()).toEqual(
      ["dr-grpo", "grpo", "ppo", "reinforce++", "reinforce++-baseline", "rloo", "steppo"].sort(),
    );
  });

  for (const name of names) {
    const entry: Method = METHODS[name];
    describe(name, () => {
      it("resolves in the config to its estimator's loss, aggregation and defaults", () => {
        const config = TrainConfig.parse({ algorithm: name });
        expect(config).toMatchObject({
          algorithm: name,
          policyLoss: entry.policyLoss,
          aggregation: entry.aggregation,
          ...entry.defaults,
        });
        // A field the user sets wins over the method's value.
        const own = TrainConfig.parse({ algorithm: name, policyLoss: "ppo", clipLow: 0.5, lambda: 0.5 });
        expect(own).toMatchObject({ algorithm: name, policyLoss: "ppo", clipLow: 0.5, lambda: 0.5 });
      });

      it("names an estimator and a policy loss that exist", () => {
        expect(typeof advantageEstimators[entry.estimator]).toBe("function");
        expect(typeof policyLosses[entry.policyLoss]).toBe("function");
      });

      it("claims a value head exactly when its estimator reads one", async () => {
        const critic = resolveMethod(name)?.critic;
        expect(critic).toBe(ESTIMATOR_CRITICS[entry.estimator]);
        const run = () => advantageEstimators[entry.estimator](tinyInput(false), OPTS);
        if (critic === "none") {
          // Without values the estimator still scores the rewarded row above the other.
          const adv = (await run()).advantages.arraySync();
          expect((adv[0]?.[1] ?? 0) > (adv[1]?.[1] ?? 0)).toBe(true);
        } else {
          await expect(run()).rejects.toThrow(/needs/);
          const adv = (
            await advantageEstimators[entry.estimator](tinyInput(true), OPTS)
          ).advantages.arraySync();
          expect((adv[0]?.[1] ?? 0) > (adv[1]?.[1] ?? 0)).toBe(true);
        }
      });
    });
  }

  it("methods other than StepPO resolve exactly as `algorithm` did before the registry", () => {
    for (const name of names.filter((n) => n !== "steppo"))
      expect(TrainConfig.parse({ algorithm: name })).toEqual({ ...base, algorithm: name });
    // StepPO is the GSPO loss at its clip range, undiscounted, as the recipes and the learning probe
    // spelled it out before.
    expect(TrainConfig.parse({ algorithm: "steppo" })).toEqual({
      ...base,
      algorithm: "steppo",
      policyLoss: "gspo",
      clipLow: 0.003,
      clipHigh: 0.004,
      gamma: 1,
      lambda: 1,
    });
  });

  it('reads the older spelling "gae" as ppo, in a new config and in a saved config.json', () => {
    expect(METHOD_ALIASES.gae).toBe("ppo");
    expect(TrainConfig.parse({ algorithm: "gae" })).toEqual(TrainConfig.parse({ algorithm: "ppo" }));
    // A run folder's config.json from before: every field resolved, PPO spelled "gae".
    const saved = { ...base, algorithm: "gae", lambda: 0.95, clipLow: 0.2, clipHigh: 0.28 };
    expect(TrainConfig.parse(saved)).toEqual({ ...saved, algorithm: "ppo" });
  });

  it("a checkpoint of an older PPO run counts as the same method (its Adam moments carry over)", () => {
    expect(sameMethod("gae", "ppo")).toBe(true);
    expect(sameMethod("ppo", "ppo")).toBe(true);
    expect(sameMethod("grpo", "ppo")).toBe(false);
    // An SFT checkpoint records no method.
    expect(sameMethod(undefined, "grpo")).toBe(false);
  });

  it("refuses an unknown method, naming the field", () => {
    const bad = TrainConfig.safeParse({ algorithm: "dpo" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["algorithm"]);
  });

  it("a new entry is all the config needs: its name parses and its defaults apply", async () => {
    const entry: Method = {
      label: "Test",
      summary: "a method added in this test",
      estimator: "rloo",
      policyLoss: "gspo",
      aggregation: "seq-mean-token-sum",
      defaults: { clipLow: 0.01, gamma: 0.9 },
    };
    expect(TrainConfig.safeParse({ algorithm: "test-method" }).success).toBe(false);
    vi.resetModules();
    vi.doMock("./registry.js", async (importOriginal) => {
      const real = await importOriginal<typeof import("./registry.js")>();
      return { ...real, METHODS: { ...real.METHODS, "test-method": entry } };
    });
    const fresh = await import("../rl/config.js");
    expect(fresh.TrainConfig.parse({ algorithm: "test-method" })).toEqual({
      ...base,
      algorithm: "test-method",
      policyLoss: "gspo",
      aggregation: "seq-mean-token-sum",
      clipLow: 0.01,
      gamma: 0.9,
    });
  });
});
