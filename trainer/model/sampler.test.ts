import { describe, expect, it } from "vitest";
import { rng } from "../../shared/random.js";
import { drawToken } from "./sampler.js";

// Probabilities 0.5, 0.3, 0.2 as logits (softmax of log p is p), at offset 1 of a longer array.
const LOGITS = Float32Array.from([99, Math.log(0.5), Math.log(0.3), Math.log(0.2)]);

describe("drawToken", () => {
  it("is greedy at temperature 0 and reports the temperature-1 logprob", () => {
    const d = drawToken(LOGITS, 1, 3, 0, 1, rng(1));
    expect(d.token).toBe(0);
    expect(d.logprob).toBeCloseTo(Math.log(0.5), 5);
  });

  it("keeps the smallest nucleus reaching top-p", () => {
    // top-p 0.6: 0.5 < 0.6, then 0.5 + 0.3 = 0.8 ≥ 0.6, so token 2 (p 0.2) is never drawn.
    const random = rng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 300; i++) seen.add(drawToken(LOGITS, 1, 3, 1, 0.6, random).token);
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it("draws in proportion to softmax(logits / T) and gives that logprob", () => {
    const random = rng(4);
    const counts = [0, 0, 0];
    let lp2 = 0;
    for (let i = 0; i < 4000; i++) {
      const d = drawToken(LOGITS, 1, 3, 1, 1, random);
      counts[d.token] = (counts[d.token] as number) + 1;
      if (d.token === 2) lp2 = d.logprob;
    }
    // Expected 2000, 1200, 800; binomial sd ≤ √(4000·0.25) ≈ 32, so ±150 is > 4 sd.
    expect(Math.abs((counts[0] as number) - 2000)).toBeLessThan(150);
    expect(Math.abs((counts[2] as number) - 800)).toBeLessThan(150);
    expect(lp2).toBeCloseTo(Math.log(0.2), 5);
    // At T = 2 the distribution is ∝ √p: √0.2 / (√0.5 + √0.3 + √0.2) = 0.4472 / 1.6020 = 0.2792.
    const hot = drawToken(LOGITS, 1, 3, 2, 1, rng(5));
    const z = Math.sqrt(0.5) + Math.sqrt(0.3) + Math.sqrt(0.2);
    const want = [Math.sqrt(0.5), Math.sqrt(0.3), Math.sqrt(0.2)].map((x) => Math.log(x / z));
    expect(hot.logprob).toBeCloseTo(want[hot.token] as number, 5);
  });
});
