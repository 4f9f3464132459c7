import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/**
 * A recipe's `curve`: after RL, the SFT policy (iteration 0) and the RL checkpoints at every
 * multiple of `every` (and the last iteration) play tasks 0..n−1 of `split` greedily, in-process,
 * and `curve.json` in the run folder records each one's success. It is for plots and for choosing
 * settings; the hub evaluation stays the results table's figure.
 */
export const CurveConfig = z.strictObject({
  /** RL iterations between points; each multiple needs a checkpoint (see `curvePlan`). */
  every: z.number().int().positive(),
  /** Tasks 0..n−1 of the split (fewer when the split is smaller). */
  n: z.number().int().positive(),
  split: z.string().default("test"),
});
export type CurveConfig = z.infer<typeof CurveConfig>;

/** One planned point: the RL iteration, counted across segments, and where its checkpoint is saved. */
export type PlannedPoint = { iteration: number; segment: number; name: string };

/**
 * The RL checkpoints at iterations every, 2·every, … and the last iteration, and the multiples of
 * `every` that have no checkpoint. A segment saves `iter-<k>` at its own iterations k that are
 * multiples of `checkpointEvery` (but not its last) and `final` at its end, so iteration g of the run
 * is saved when g ends a segment or its place in the segment is a multiple of `checkpointEvery`.
 */
export function curvePlan(
  iterations: number,
  segment: number,
  checkpointEvery: number,
  every: number,
): { points: PlannedPoint[]; missing: number[] } {
  // The segments as plan.ts's segmentSizes cuts them (not imported: plan.ts → recipe.ts → here).
  const sizes: number[] = [];
  for (let left = iterations; left > 0; left -= segment) sizes.push(Math.min(segment, left));
  const points: PlannedPoint[] = [];
  const missing: number[] = [];
  const wanted = new Set<number>();
  for (let g = every; g <= iterations; g += every) wanted.add(g);
  wanted.add(iterations);
  let offset = 0;
  sizes.forEach((size, i) => {
    for (let local = 1; local <= size; local++) {
      const g = offset + local;
      if (!wanted.has(g)) continue;
      if (local === size) points.push({ iteration: g, segment: i + 1, name: "final" });
      else if (local % checkpointEvery === 0)
        points.push({ iteration: g, segment: i + 1, name: `iter-${local}` });
      else missing.push(g);
    }
    offset += size;
  });
  return { points, missing };
}

/** One evaluated point: successes of n greedy episodes (infrastructure failures count as failures). */
export const CurvePoint = z.object({
  iteration: z.number().int().nonnegative(),
  checkpoint: z.string(),
  success: z.number(),
  successes: z.number().int().nonnegative(),
  n: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative().default(0),
  seconds: z.number(),
  /** The run folder whose curve.json this point was taken from (the SFT point of an adopted SFT stage). */
  from: z.string().optional(),
});
export type CurvePoint = z.infer<typeof CurvePoint>;

/** `curve.json`: the settings it was made with and the points done so far, in iteration order. */
export const CurveFile = z.object({
  env: z.string(),
  split: z.string(),
  n: z.number().int().positive(),
  every: z.number().int().positive(),
  points: z.array(CurvePoint),
  /** Planned iterations whose checkpoint was not on disk when the stage ran. */
  absent: z.array(z.number().int()).default([]),
});
export type CurveFile = z.infer<typeof CurveFile>;

export const curveFile = (runDir: string) => join(runDir, "curve.json");

/** The run folder's curve.json, or undefined when it has none or it does not parse. */
export async function readCurve(runDir: string): Promise<CurveFile | undefined> {
  const text = await readFile(curveFile(runDir), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = CurveFile.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes curve.json atomically (temp file + rename), as state.json is. */
export async function writeCurve(runDir: string, curve: CurveFile): Promise<void> {
  const file = curveFile(runDir);
  await writeFile(`${file}.tmp`, `${JSON.stringify(curve, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
