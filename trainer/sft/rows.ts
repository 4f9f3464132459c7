import { extendsPrefix } from "../rollout/prompt.js";
import type { Trajectory } from "../rollout/types.js";
import type { SftBatch } from "./step.js";

/** One SFT training sequence: token ids and, per id, whether it is a response id to learn. */
export type SftRow = { tokens: number[]; learn: boolean[] };

/**
 * The SFT rows of demonstrations, one per episode where it can be: when a step's prompt is the
 * previous step's prompt ++ response ++ observation (append mode), the previous step is already inside
 * it, so the episode's last sequence carries every response and the earlier rows would only repeat
 * its prefix. A step whose prompt was replaced starts a new row. Observation ids are never learned.
 * With `learnSteps`, only the responses of those steps (indexes from 0) are learned, and a row that
 * learns nothing is dropped: a drill on one decision costs only the rows that hold it.
 */
export function sftRows(trajectories: readonly Trajectory[], learnSteps?: readonly number[]): SftRow[] {
  const rows: SftRow[] = [];
  const learns = (k: number) => learnSteps === undefined || learnSteps.includes(k);
  for (const t of trajectories) {
    let row: SftRow | undefined;
    for (const [k, step] of t.steps.entries()) {
      if (row && extendsPrefix(row.tokens, step)) {
        row.learn.push(...new Array<boolean>(step.promptIds.length - row.tokens.length).fill(false));
      } else {
        if (row) rows.push(row);
        row = { tokens: [...step.promptIds], learn: new Array<boolean>(step.promptIds.length).fill(false) };
      }
      row.tokens = [...step.promptIds, ...step.responseIds];
      row.learn.push(...new Array<boolean>(step.responseIds.length).fill(learns(k)));
    }
    if (row) rows.push(row);
  }
  return rows.filter((r) => r.learn.includes(true));
}

/**
 * Rows as next-token tensors padded only to the longest of them: ids `[R, T]` with T = max length − 1,
 * targets the ids shifted left, mask 1 where the target is a learned id.
 */
export function padSftRows(rows: readonly SftRow[], pad: number): SftBatch {
  const width = Math.max(1, ...rows.map((r) => r.tokens.length - 1));
  return {
    ids: rows.map((r) => Array.from({ length: width }, (_, t) => r.tokens[t] ?? pad)),
    targets: rows.map((r) => Array.from({ length: width }, (_, t) => r.tokens[t + 1] ?? pad)),
    mask: rows.map((r) => Array.from({ length: width }, (_, t) => (r.learn[t + 1] ? 1 : 0))),
  };
}
