import { extendsPrefix } from "../rollout/prompt.js";
import type { Trajectory } from "../rollout/types.js";

/**
 * Where one step's response sits in the training layout: row `row`, response id j predicted at
 * position `start + j` (`start` = P − 1 for a prompt of P ids, so it is also the last prompt position,
 * where StepPO reads the step's value).
 */
export type StepSpan = { row: number; start: number; length: number };

/**
 * The training layout of a set of episodes. A row holds `prompt ++ response` of one step, right-padded
 * to T, and the model is scored on predicting each response id. With `merge`, consecutive steps of an
 * append-mode episode share one row: a step whose prompt is the previous step's prompt ++ response ++
 * observation already contains it, so the row of the last such step scores every one of their
 * responses (under the causal mask each response id sees exactly the prefix it was sampled from),
 * and the prefix is pushed through the model once instead of once per step. Prompt (and so
 * observation) positions are never in the mask.
 *
 * Advantages are computed per episode instead ("flat" rows: the response ids of all of an episode's
 * steps back to back); `toFlat` and `fromFlat` map between the two layouts.
 */
export type TrainBatch = {
  /** Ids of each row (the last step's prompt ++ response), unpadded. */
  sequences: number[][];
  /**
   * Positions each row needs: every predicted id, and each step's start (where an empty response still
   * has a value), at least 1.
   */
  lengths: number[];
  /** Row length T: the longest of `lengths`. */
  width: number;
  /** Input ids [R, T] and next-token targets [R, T], padded with `pad`. */
  ids: number[][];
  targets: number[][];
  /** 1 at positions whose target is a response id. */
  mask: number[][];
  episodes: EpisodeLayout[];
  /** Longest flat row (Σ response lengths of an episode) and most steps of an episode. */
  flatWidth: number;
  maxSteps: number;
};

export type EpisodeLayout = {
  trajectory: Trajectory;
  /** Where each step's response is in the row layout. */
  spans: StepSpan[];
  /** Flat offset of each step's first response id. */
  offsetOfStep: number[];
  /** Σ of the episode's response lengths. */
  length: number;
};

/**
 * Lays out the trajectories that have steps and no infrastructure failure (the rest do not train),
 * one row per step, or with `merge` one row per run of append-mode steps.
 */
export function buildBatch(trajectories: readonly Trajectory[], pad: number, merge = false): TrainBatch {
  const usable = trajectories.filter((t) => t.failure === undefined && t.steps.length > 0);
  const sequences: number[][] = [];
  const episodes: EpisodeLayout[] = usable.map((trajectory) => {
    const spans: StepSpan[] = [];
    const offsetOfStep: number[] = [];
    let length = 0;
    let open = false;
    for (const step of trajectory.steps) {
      const last = sequences.length - 1;
      if (!(merge && open && extendsPrefix(sequences[last] as number[], step))) sequences.push([]);
      const row = sequences.length - 1;
      sequences[row] = [...step.promptIds, ...step.responseIds];
      spans.push({ row, start: step.promptIds.length - 1, length: step.responseIds.length });
      offsetOfStep.push(length);
      length += step.responseIds.length;
      open = true;
    }
    return { trajectory, spans, offsetOfStep, length };
  });
  const lengths = sequences.map((seq) => Math.max(1, seq.length - 1));
  for (const e of episodes) {
    for (const s of e.spans) lengths[s.row] = Math.max(lengths[s.row] as number, s.start + 1);
  }
  const width = Math.max(1, ...lengths);
  const mask = sequences.map(() => new Array<number>(width).fill(0));
  for (const e of episodes) {
    for (const s of e.spans) (mask[s.row] as number[]).fill(1, s.start, s.start + s.length);
  }
  return {
    sequences,
    lengths,
    width,
    ids: sequences.map((seq) => Array.from({ length: width }, (_, t) => seq[t] ?? pad)),
    targets: sequences.map((seq) => Array.from({ length: width }, (_, t) => seq[t + 1] ?? pad)),
    mask,
    episodes,
    flatWidth: Math.max(1, ...episodes.map((e) => e.length)),
    maxSteps: Math.max(1, ...episodes.map((e) => e.spans.length)),
  };
}

/** Per-episode flat arrays `[E, flatWidth]` built by `at(row, t, k)` for each response id (row position t, step k). */
export function toFlat(
  batch: TrainBatch,
  at: (row: number, t: number, k: number) => number,
  fill = 0,
): number[][] {
  return batch.episodes.map((e) => {
    const out = new Array<number>(batch.flatWidth).fill(fill);
    e.spans.forEach((s, k) => {
      const offset = e.offsetOfStep[k] as number;
      for (let j = 0; j < s.length; j++) out[offset + j] = at(s.row, s.start + j, k);
    });
    return out;
  });
}

/** The inverse: flat per-episode values `[E, flatWidth]` back onto the row layout `[R, T]` (0 elsewhere). */
export function fromFlat(batch: TrainBatch, flat: number[][]): number[][] {
  const out = batch.sequences.map(() => new Array<number>(batch.width).fill(0));
  batch.episodes.forEach((e, ei) => {
    e.spans.forEach((s, k) => {
      const offset = e.offsetOfStep[k] as number;
      for (let j = 0; j < s.length; j++) (out[s.row] as number[])[s.start + j] = flat[ei]?.[offset + j] ?? 0;
    });
  });
  return out;
}
