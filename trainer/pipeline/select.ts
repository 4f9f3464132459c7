import { z } from "zod";

/**
 * A recipe's `select`: after each RL segment its final checkpoint plays tasks 0..n−1 of `split`
 * greedily, in-process, and the hub evaluation takes the segment that scored best (the later one on a
 * tie) instead of the last. One gradient step on 64 rollouts moves test success by several points
 * between checkpoints, so the last one is a noisy pick; choosing on held-out train tasks is early
 * stopping that never reads the test split. Unset: the last segment.
 */
export const SelectConfig = z.strictObject({
  /** The split the candidates play; never `test`, whose tasks make the reported figures. */
  split: z
    .string()
    .refine((s) => s !== "test", "must not be test: the checkpoint is chosen on train or validation tasks"),
  /** Tasks 0..n−1 of the split (the RL draw takes a few hundred of the train split's 100,000). */
  n: z.number().int().positive(),
});
export type SelectConfig = z.infer<typeof SelectConfig>;

/** A finished segment as state.json records it. */
type Segment = { dir: string; validation?: { success: number } | undefined };

/** The index of the segment to evaluate: the best validated one when the recipe selects, else the last. */
export function selectedSegment(segments: readonly Segment[], select: SelectConfig | undefined): number {
  if (!select) return segments.length - 1;
  let best = segments.length - 1;
  segments.forEach((s, i) => {
    const score = s.validation?.success ?? -1;
    const bestScore = segments[best]?.validation?.success ?? -1;
    if (score > bestScore || (score === bestScore && i > best)) best = i;
  });
  return best;
}
