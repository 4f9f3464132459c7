import { mixSeed } from "../../shared/random.js";
import type { SampleOptions, SampleResult } from "../model/types.js";
import type { PortableSampleOptions } from "./protocol.js";
import type { ShardModels } from "./shard-task.js";
import { evenRanges } from "./shards.js";

/** What sampling needs of a pool (PolicyPool), named here so that the pool can import this module. */
export type SamplingPool = {
  readonly models: ShardModels;
  readonly size: number;
  sampleOn(parts: readonly { prompts: number[][]; opts: PortableSampleOptions }[]): Promise<SampleResult[]>;
};

/**
 * Samples a batch split across the pool's threads in contiguous runs of rows. The tokens are the
 * single-thread ones (up to float associativity) because what decides a row's tokens does not depend
 * on the split:
 * - each row draws from its own random stream, `rowSeeds[i]` or mixSeed(seed, i) as `generate` does;
 * - every shard gets the whole batch's token budget (`generate` caps it by the longest prompt, which
 *   a shard of shorter prompts would not see).
 * A per-token callback cannot cross threads, and what `generate` refuses is refused alike, so those
 * calls run on the main thread alone.
 */
export async function shardedSample(
  pool: SamplingPool,
  prompts: readonly (readonly number[])[],
  opts: SampleOptions,
): Promise<SampleResult> {
  const policy = pool.models.policy;
  const longest = Math.max(0, ...prompts.map((p) => p.length));
  const budget = Math.min(opts.maxNewTokens, policy.config.contextLength - longest);
  const alone =
    pool.size === 1 ||
    prompts.length < 2 ||
    opts.onToken !== undefined ||
    budget < 0 ||
    prompts.some((p) => p.length === 0);
  if (alone) return policy.sample(prompts, opts);
  const seeds = prompts.map((_, i) => opts.rowSeeds?.[i] ?? mixSeed(opts.seed, i));
  const { onToken: _, ...portable } = opts;
  const parts = evenRanges(prompts.length, pool.size).map(([from, to]) => ({
    prompts: prompts.slice(from, to).map((p) => [...p]),
    opts: { ...portable, maxNewTokens: budget, rowSeeds: seeds.slice(from, to) },
  }));
  const results = await pool.sampleOn(parts);
  return {
    tokens: results.flatMap((r) => r.tokens),
    logprobs: results.flatMap((r) => r.logprobs),
    finished: results.flatMap((r) => r.finished),
  };
}
