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
});
