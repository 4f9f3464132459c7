import type { StepRecord, Trajectory } from "../rollout/types.js";

/**
 * The training layout of a set of episodes. Rows are steps: row r holds `prompt ++ response` of one
 * step, right-padded to T, and the model is scored on predicting each response id, so response id j
 * of a row with prompt length P sits at position P − 1 + j of the `[R, T]` tensors. Prompt (and so
 * observation) positions are never in the mask.
 *
 * Advantages are computed per episode instead ("flat" rows: the response ids of all of an episode's
 * steps back to back); `flatIndex` maps each response id from one layout to the other.
 */
export type TrainBatch = {
  rows: StepRecord[];
  /** Row length T (longest prompt + response − 1 over the rows). */
  width: number;
  /** Input ids [R, T] and next-token targets [R, T], padded with `pad`. */
  ids: number[][];
  targets: number[][];
  /** 1 at positions whose target is a response id. */
  mask: number[][];
  /** Position of each row's last prompt token (P − 1): where StepPO reads the value. */
  lastPrompt: number[];
  episodes: EpisodeLayout[];
  /** Longest flat row (Σ response lengths of an episode) and most steps of an episode. */
  flatWidth: number;
  maxSteps: number;
};

export type EpisodeLayout = {
  trajectory: Trajectory;
  /** Row index of each step. */
  rowOfStep: number[];
  /** Flat offset of each step's first response id. */
  offsetOfStep: number[];
  /** Σ of the episode's response lengths. */
  length: number;
};

/** Lays out the trajectories that have steps and no infrastructure failure (the rest do not train). */
export function buildBatch(trajectories: readonly Trajectory[], pad: number): TrainBatch {
  const usable = trajectories.filter((t) => t.failure === undefined && t.steps.length > 0);
  const rows: StepRecord[] = [];
  const episodes: EpisodeLayout[] = usable.map((trajectory) => {
    const rowOfStep: number[] = [];
    const offsetOfStep: number[] = [];
    let length = 0;
    for (const step of trajectory.steps) {
      rowOfStep.push(rows.length);
      offsetOfStep.push(length);
      rows.push(step);
      length += step.responseIds.length;
    }
    return { trajectory, rowOfStep, offsetOfStep, length };
  });
  const width = Math.max(1, ...rows.map((r) => r.promptIds.length + r.responseIds.length - 1));
  const ids: number[][] = [];
  const targets: number[][] = [];
  const mask: number[][] = [];
  const lastPrompt: number[] = [];
  for (const r of rows) {
    const seq = [...r.promptIds, ...r.responseIds];
    const p = r.promptIds.length;
    ids.push(Array.from({ length: width }, (_, t) => seq[t] ?? pad));
    targets.push(Array.from({ length: width }, (_, t) => seq[t + 1] ?? pad));
    mask.push(
      Array.from({ length: width }, (_, t) => (t >= p - 1 && t < p - 1 + r.responseIds.length ? 1 : 0)),
    );
    lastPrompt.push(p - 1);
  }
  return {
    rows,
    width,
    ids,
    targets,
    mask,
    lastPrompt,
    episodes,
    flatWidth: Math.max(1, ...episodes.map((e) => e.length)),
    maxSteps: Math.max(1, ...episodes.map((e) => e.rowOfStep.length)),
  };
}

/** Per-episode flat arrays `[E, flatWidth]` built by `at(row, step, j)` for each response id j. */
export function toFlat(
  batch: TrainBatch,
  at: (row: number, k: number, j: number) => number,
  fill = 0,
): number[][] {
  return batch.episodes.map((e) => {
    const out = new Array<number>(batch.flatWidth).fill(fill);
    e.rowOfStep.forEach((row, k) => {
      const n = (batch.rows[row] as StepRecord).responseIds.length;
      for (let j = 0; j < n; j++) out[(e.offsetOfStep[k] as number) + j] = at(row, k, j);
    });
    return out;
  });
}

/** The inverse: flat per-episode values `[E, flatWidth]` back onto the row layout `[R, T]` (0 elsewhere). */
export function fromFlat(batch: TrainBatch, flat: number[][]): number[][] {
  const out = batch.rows.map(() => new Array<number>(batch.width).fill(0));
  batch.episodes.forEach((e, ei) => {
    e.rowOfStep.forEach((row, k) => {
      const record = batch.rows[row] as StepRecord;
      const start = record.promptIds.length - 1;
      for (let j = 0; j < record.responseIds.length; j++) {
        (out[row] as number[])[start + j] = flat[ei]?.[(e.offsetOfStep[k] as number) + j] ?? 0;
      }
    });
  });
  return out;
}
