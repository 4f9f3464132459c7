import { describe, expect, it } from "vitest";
import { bm25Index, tokenize } from "./bm25.js";

const K1 = 1.2;
const B = 0.75;
/** FTS5's term score by hand: IDF · f·(k1+1) / (f + k1·(1 − b + b·|D|/avgdl)). */
const termScore = (idf: number, f: number, length: number, avgdl: number) =>
  (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / avgdl));

describe("in-memory BM25 with FTS5's formula", () => {
  const docs = [
    [{ text: "Apple banana", weight: 1 }],
    [{ text: "apple", weight: 1 }],
    [{ text: "Crème brûlée", weight: 1 }],
  ];
  const index = bm25Index(docs);
  const avgdl = 5 / 3;

  it("scores a rare word by its IDF and the document's length", () => {
    const [hit, ...rest] = index.rank(["banana"], 5);
    expect(rest).toEqual([]);
    expect(hit?.doc).toBe(0);
    expect(hit?.score).toBeCloseTo(termScore(Math.log(2.5 / 1.5), 1, 2, avgdl), 12);
  });

  it("floors a common word's IDF at 1e-6, so the shorter document ranks first", () => {
    const hits = index.rank(["APPLE"], 5);
    expect(hits.map((h) => h.doc)).toEqual([1, 0]);
    expect(hits[0]?.score).toBeCloseTo(termScore(1e-6, 1, 1, avgdl), 15);
  });

  it("folds case and diacritics, splits multi-token words, and keeps the best k", () => {
    expect(tokenize("Crème-Brûlée 2x")).toEqual(["creme", "brulee", "2x"]);
    expect(index.rank(["creme-brulee"], 5).map((h) => h.doc)).toEqual([2]);
    expect(index.rank(["banana", "creme"], 1).map((h) => h.doc)).toHaveLength(1);
    expect(index.rank([], 5)).toEqual([]);
  });

  it("counts a weighted column's tokens weight times in f, once in |D|", () => {
    const weighted = bm25Index([
      [
        { text: "kiwi", weight: 2 },
        { text: "plum", weight: 1 },
      ],
      [{ text: "fig", weight: 1 }],
    ]);
    const [hit] = weighted.rank(["kiwi"], 1);
    // One of two documents holds it: ln((2 − 1 + 0.5) / 1.5) = 0, floored.
    expect(hit?.score).toBeCloseTo(termScore(1e-6, 2, 2, 1.5), 15);
  });
});
