import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUCKETS, SlidingWindow } from "./sliding-window.js";

describe("SlidingWindow", () => {
  it("one request every 100 ms for 30 s at 5 per 10 s: the admissions computed by hand", () => {
    const w = new SlidingWindow();
    const t0 = 1_000_000; // bucket 2000 of 500 ms (10 s / 20 buckets)
    const admitted: number[] = [];
    for (let at = 0; at <= 30_000; at += 100) if (w.take("k", t0 + at, 5, 10_000).ok) admitted.push(at);
    // 0..400 fill bucket 2000. The counted span is the current bucket and the 20 before it, so bucket
    // 2000 stops counting at bucket 2021 = t0 + 21 × 500 = t0 + 10_500: 10_500..10_900 fill it. The
    // next five wait for bucket 2042 = t0 + 21_000; the next for 2063 = t0 + 31_500, after the run.
    expect(BUCKETS).toBe(20);
    expect(admitted).toEqual([
      0, 100, 200, 300, 400, 10_500, 10_600, 10_700, 10_800, 10_900, 21_000, 21_100, 21_200, 21_300, 21_400,
    ]);
  });

  it("reports when the next request is admitted", () => {
    const w = new SlidingWindow();
    for (let i = 0; i < 3; i++) expect(w.take("k", 9_900, 3, 10_000).ok).toBe(true);
    // 9_900 is in bucket 19 (9_500..9_999); it leaves the span at bucket 40 = 20_000 ms.
    expect(w.take("k", 10_100, 3, 10_000)).toEqual({ ok: false, retryAfterMs: 9_900 });
    expect(w.take("k", 19_999, 3, 10_000).ok).toBe(false);
    expect(w.take("k", 20_000, 3, 10_000).ok).toBe(true);
    // Keys are independent.
    expect(w.take("other", 10_100, 3, 10_000).ok).toBe(true);
  });

  it("never admits more than the limit in any span of the period (any arrival times)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1_000, max: 60_000 }),
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 300 }),
        (limit, period, times) => {
          const w = new SlidingWindow();
          const admitted = [...times].sort((a, b) => a - b).filter((t) => w.take("k", t, limit, period).ok);
          for (let i = 0; i + limit < admitted.length; i++) {
            // limit + 1 admissions never fit in a span shorter than the period
            expect((admitted[i + limit] ?? 0) - (admitted[i] ?? 0)).toBeGreaterThanOrEqual(period);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("forgets the least recently seen key beyond its capacity", () => {
    const w = new SlidingWindow(2);
    expect(w.take("a", 0, 1, 10_000).ok).toBe(true);
    expect(w.take("b", 0, 1, 10_000).ok).toBe(true);
    expect(w.take("a", 1, 1, 10_000).ok).toBe(false); // a is now the most recently seen
    expect(w.take("c", 2, 1, 10_000).ok).toBe(true); // evicts b
    expect(w.take("a", 3, 1, 10_000).ok).toBe(false);
    expect(w.take("b", 4, 1, 10_000).ok).toBe(true); // b was forgotten (evicts a)
  });
});
