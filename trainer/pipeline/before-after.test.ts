import { describe, expect, it } from "vitest";
import { beforeAfter } from "./before-after.js";
import type { JobState } from "./plan.js";

const agg = { n: 1000, verified: 1000, meanReturn: 0.6, successRate: 0.6, stderr: 0.015, meanSteps: 2 };

describe("the main job's closing table", () => {
  it("names the checkpoint the hub evaluated, not the last segment's, when select chose an earlier one", () => {
    const segment = (k: number) => ({ dir: `/run/rl/segment-${k}`, iterations: 10, seconds: 1 });
    const state: JobState = {
      recipe: "r",
      resolved: {},
      sft: { checkpoint: "/run/sft/checkpoints/final", seconds: 1 },
      segments: [segment(1), segment(2), segment(3), segment(4)],
      evalSft: {
        runId: "a",
        model: "r/sft",
        checkpoint: "/run/sft/checkpoints/final",
        aggregate: agg,
        seconds: 1,
      },
      evalRl: {
        runId: "b",
        model: "r/sft+grpo",
        checkpoint: "/run/rl/segment-3/checkpoints/final",
        aggregate: agg,
        seconds: 1,
      },
    };
    const lines = beforeAfter(state, "/run", "http://hub", "edgegym/calculator-l1@1.0.0", "test").split("\n");
    expect(lines.find((l) => l.startsWith("checkpoint:"))).toBe(
      "checkpoint:  /run/rl/segment-3/checkpoints/final (SFT: /run/sft/checkpoints/final)",
    );
    // Before the RL evaluation there is no evaluated checkpoint yet: the last segment's is shown.
    const running = beforeAfter(
      { ...state, evalRl: undefined },
      "/run",
      "http://hub",
      "edgegym/c@1.0.0",
      "test",
    );
    expect(running).toContain("checkpoint:  /run/rl/segment-4/checkpoints/final");
  });

  it("compares the two policies task by task when both evaluations recorded their outcomes", () => {
    const evaluated = (model: string, outcomes: string, successRate: number) => ({
      runId: model,
      model,
      checkpoint: "/c",
      aggregate: { ...agg, n: 4, successRate, meanReturn: successRate },
      seconds: 1,
      outcomes,
    });
    const state: JobState = {
      recipe: "r",
      resolved: {},
      segments: [],
      evalSft: evaluated("r/sft", "0101", 0.5),
      evalRl: evaluated("r/sft+grpo", "1110", 0.75),
    };
    // d = 1, 0, 1, −1; d̄ = 0.25; d − d̄ = 0.75, −0.25, 0.75, −1.25; Σ² = 0.5625 + 0.0625 + 0.5625 +
    // 1.5625 = 2.75; se = sqrt(4/3 · 2.75) / 4 = 0.4787136; k = 0.25 / 0.4787136 = 0.52.
    const line = beforeAfter(state, "/run", "http://hub", "edgegym/c@1.0.0", "test")
      .split("\n")
      .find((l) => l.startsWith("RL − SFT"));
    expect(line).toBe(
      "RL − SFT success: +0.250 (paired by task index: ± 0.479, 0.5 s.e.; RL solves 2 tasks SFT failed and fails 1 it solved)",
    );
  });
});
