import { describe, expect, it } from "vitest";
import { iterationProgress, taskProgress } from "./progress.js";

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

describe("taskProgress", () => {
  it("writes a line each tenth of the tasks, and at the last, when the stream is not a TTY", () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const progress = taskProgress("eval", 10, stream);
    for (let done = 1; done <= 25; done++) progress.update(done, 25);
    progress.stop();
    // ⌈25/10⌉ = 3: a line at 3, 6, …, 24, and at 25.
    expect(lines).toEqual([
      ...[3, 6, 9, 12, 15, 18, 21, 24].map((d) => `eval ${d}/25 tasks\n`),
      "eval 25/25 tasks\n",
    ]);
  });
});
