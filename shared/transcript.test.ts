import { describe, expect, it } from "vitest";
import { fitTranscript, type Transcript } from "./transcript.js";

const size = (t: unknown) => new TextEncoder().encode(JSON.stringify(t)).length;

describe("fitTranscript", () => {
  const small: Transcript = {
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "q" },
    ],
    steps: [{ action: { content: "#### 1" }, reward: 1, observation: [], done: true }],
  };

  it("keeps a transcript under the limit as it is", () => {
    expect(fitTranscript(small, 10_000)).toBe(small);
  });

  it("cuts long texts until the transcript fits, saying how much was cut", () => {
    // One user turn of 10,000 characters against a 3,000-byte limit: 4,000 characters are still too
    // many, 1,000 fit, so the turn keeps 1,000 and notes the 9,000 cut.
    const long: Transcript = { ...small, messages: [{ role: "user", content: "x".repeat(10_000) }] };
    const fitted = fitTranscript(long, 3_000);
    expect(fitted?.messages[0]?.content).toBe(`${"x".repeat(1000)}… [9000 characters cut]`);
    expect(size(fitted)).toBeLessThanOrEqual(3_000);
  });

  it("gives up (null) when even the shortest cut is too big", () => {
    const many: Transcript = {
      messages: [],
      steps: Array.from({ length: 200 }, () => ({
        action: { content: "y".repeat(500) },
        reward: 0,
        observation: [],
      })),
    };
    expect(fitTranscript(many, 2_000)).toBeNull();
  });
});
