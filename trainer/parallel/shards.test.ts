import { describe, expect, it } from "vitest";
import type { ModelConfig } from "../model/types.js";
import { evenRanges, shardPasses, shardRows } from "./shards.js";

// passCost(c, 1, w) = w · (L·H·w + 2·V) = w · (1·1·w + 2·1) = w² + 2w with this shape.
const C = { nLayers: 1, nHeads: 1, vocabSize: 1 } as ModelConfig;

describe("evenRanges", () => {
  it("splits into contiguous runs whose sizes differ by at most one", () => {
    expect(evenRanges(7, 2)).toEqual([
      [0, 3],
      [3, 7],
    ]);
    expect(evenRanges(64, 2)).toEqual([
      [0, 32],
      [32, 64],
    ]);
    // Fewer items than shards: one item each, no empty shard.
    expect(evenRanges(2, 3)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });
});

describe("shardRows", () => {
  it("cuts rows sorted by length where the cost reaches each shard's share", () => {
    // Lengths 2, 2, 2, 4 (rows 0, 1, 3, 2 sorted): costs 8, 8, 8, 24, total 48, half 24. Rows 0, 1, 3
    // reach 24 together, so the long row 2 is a shard alone.
    const lengths = [2, 2, 4, 2];
    expect(shardRows(lengths, [0, 1, 2, 3], C, 2)).toEqual([[0, 1, 3], [2]]);
  });

  it("keeps one row for each later shard and never makes more shards than rows", () => {
    // Costs 8 (row 0) and 99·101 = 9999 (row 1): row 0 alone is under half, but row 1 must be left
    // for the second shard.
    expect(shardRows([2, 99], [0, 1], C, 2)).toEqual([[0], [1]]);
    expect(shardRows([5], [0], C, 4)).toEqual([[0]]);
    expect(shardRows([3, 3, 3], [2, 0], C, 1)).toEqual([[2, 0]]);
  });

  it("plans each shard's passes within the budget", () => {
    // Budget 30: a pass of two rows of length 2 costs 16; a third makes 24; a fourth 32 > 30.
    const lengths = [2, 2, 2, 2, 2, 2];
    const passes = shardPasses(lengths, [0, 1, 2, 3, 4, 5], C, 30, 1);
    expect(passes).toEqual([
      [
        { rows: [0, 1, 2], width: 2 },
        { rows: [3, 4, 5], width: 2 },
      ],
    ]);
  });
});
