import { describe, expect, it } from "vitest";
import { claimedSuccess, defaultSuccess, stepSuccess } from "./success.js";

const final = { done: true, truncated: false, reward: 0.4, info: { reward_components: { outcome: 0.4 } } };

describe("success", () => {
  it("the kit's default: the outcome component when present, else the reward, is positive", () => {
    expect(defaultSuccess(1, { outcome: 0 })).toBe(false);
    expect(defaultSuccess(0, { outcome: 1 })).toBe(true);
    expect(defaultSuccess(0.5, { attributes: 0.5 })).toBe(true);
    expect(defaultSuccess(0, {})).toBe(false);
  });

  it("a step's success is the env's info.success; a step before the field uses the earlier rule", () => {
    expect(stepSuccess({ ...final, info: { ...final.info, success: false } })).toBe(false);
    expect(stepSuccess({ ...final, reward: 0, info: { reward_components: {}, success: true } })).toBe(true);
    // No info.success (an older server): a final, untruncated step with outcome 0.4 > 0.
    expect(stepSuccess(final)).toBe(true);
    expect(stepSuccess({ ...final, truncated: true })).toBe(false);
    expect(stepSuccess({ ...final, done: false, info: { ...final.info, success: true } })).toBe(false);
  });

  it("a receipt's claim decides; without one a positive final reward does", () => {
    expect(claimedSuccess({ success: false, finalReward: 1 })).toBe(false);
    expect(claimedSuccess({ success: true, finalReward: 0 })).toBe(true);
    expect(claimedSuccess({ finalReward: 0.25 })).toBe(true);
    expect(claimedSuccess({ finalReward: 0 })).toBe(false);
  });
});
