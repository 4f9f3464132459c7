import { describe, expect, it } from "vitest";
import { iterationProgress } from "./progress.js";

describe("iterationProgress", () => {
  it("writes one line per iteration when the stream is not a TTY", () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const progress = iterationProgress("train", stream);
    progress.update(1, 2, { "reward/mean": 0.25, "losses/policy": -0.1, other: 3 });
    progress.update(2, 2, { "reward/mean": 0.5 });
    progress.stop();
    expect(lines).toEqual([
      "train 1/2 reward/mean=0.250 losses/policy=-0.100\n",
      "train 2/2 reward/mean=0.500\n",
    ]);
  });
});
