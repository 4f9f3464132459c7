import { type Pass, passCost, planPasses } from "../model/passes.js";
import type { ModelConfig } from "../model/types.js";

/** `[from, to)` ranges splitting `n` items into `k` contiguous runs whose sizes differ by at most one. */
export function evenRanges(n: number, k: number): [number, number][] {
  const parts = Math.max(1, Math.min(k, n));
  return Array.from({ length: parts }, (_, j) => [
    Math.floor((j * n) / parts),
    Math.floor(((j + 1) * n) / parts),
  ]);
}

/**
 * Splits `rows` into at most `k` shards of about equal cost (a row costs the pass it would be alone:
 * {@link passCost}). Rows are sorted by length first and each shard is a contiguous run, so a shard
 * pads only to its own longest row, as {@link planPasses} does. No shard is empty.
 */
export function shardRows(
  lengths: readonly number[],
  rows: readonly number[],
  c: ModelConfig,
  k: number,
): number[][] {
  const sorted = [...rows].sort((a, b) => (lengths[a] as number) - (lengths[b] as number));
  const costs = sorted.map((r) => passCost(c, 1, lengths[r] as number));
  const total = costs.reduce((a, b) => a + b, 0);
  const parts = Math.max(1, Math.min(k, sorted.length));
  const shards: number[][] = [];
  let current: number[] = [];
  let spent = 0;
  sorted.forEach((r, i) => {
    current.push(r);
    spent += costs[i] as number;
    const left = sorted.length - i - 1;
    const shardsLeft = parts - shards.length - 1;
    // Cut at the shard's share of the total cost, or when each later shard needs one of the rows left.
    const due = (total * (shards.length + 1)) / parts;
    if (shardsLeft > 0 && (spent >= due || left === shardsLeft)) {
      shards.push(current);
      current = [];
    }
  });
  if (current.length > 0) shards.push(current);
  return shards;
}

/** Each shard's passes ({@link planPasses} within the shard): what one thread runs for a step. */
export function shardPasses(
  lengths: readonly number[],
  rows: readonly number[],
  c: ModelConfig,
  budget: number,
  k: number,
): Pass[][] {
  return shardRows(lengths, rows, c, k).map((shard) => planPasses(lengths, shard, c, budget));
}
