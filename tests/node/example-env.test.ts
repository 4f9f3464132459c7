import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { guessNumber } from "../../environments/examples/guess-number/index.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { describeConformance } from "../conformance/index.js";
import { serveOnNode } from "../conformance/node-target.js";

const ROOT = resolve(import.meta.dirname, "../..");
const FILE = "environments/examples/guess-number/index.ts";

describeConformance("guess-number example on Node", () => serveOnNode([guessNumber]));

describe("the writing-an-environment example", () => {
  it("docs/writing-an-environment.md shows the example's code byte for byte", () => {
    const doc = readFileSync(resolve(ROOT, "docs/writing-an-environment.md"), "utf8");
    const fence = `\`\`\`ts file=${FILE}\n`;
    const start = doc.indexOf(fence);
    expect(start, `the doc has no ${fence.trim()} block`).toBeGreaterThanOrEqual(0);
    const body = doc.slice(start + fence.length, doc.indexOf("\n```", start + fence.length) + 1);
    expect(body).toBe(readFileSync(resolve(ROOT, FILE), "utf8"));
  });

  it("the binary-search expert finds every secret within the step limit", async () => {
    const runtime = { bindings: await generateSecrets() };
    for (let index = 0; index < 40; index++) {
      let { session } = await guessNumber.startSession({ split: "train", index }, runtime);
      for (let step = 1; ; step++) {
        const { action } = await guessNumber.expert(session, runtime);
        const r = await guessNumber.step({ session, action }, runtime);
        if (r.done) {
          // 1..100 needs at most ceil(log2(101)) = 7 guesses, then the answer: 8 steps <= maxSteps 10.
          expect([r.reward, r.truncated, step <= 8]).toEqual([1, false, true]);
          break;
        }
        session = r.session;
      }
    }
  });
});
