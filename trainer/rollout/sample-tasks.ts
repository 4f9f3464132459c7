import { rng } from "../../shared/random.js";

/** `count` task indices of a split of `size`, drawn with a seeded PRNG. */
export function sampleTasks(size: number, count: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => r.int(0, Math.max(0, size - 1)));
}
