import { describe, expect, it } from "vitest";
import type { RolloutStats, Trajectory } from "../rollout/types.js";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { informativeGroups, type RolloutRound, sampleIteration } from "./dynamic-sampling.js";

/** A round's rollouts: one group per entry of `returns`, one one-step episode per return, numbered from 0. */
function round(returns: number[][], failed: ReadonlySet<number> = new Set()): Trajectory[] {
  let episode = 0;
  return returns.flatMap((group, g) =>
    group.map((r) => {
      const t = trajectory([stepRecord({ episode, group: g, reward: r, done: true })], { success: r === 1 });
      if (failed.has(episode++)) t.failure = { kind: "network", detail: "down", attempts: 1 };
      return t;
    }),
  );
}

const byReturn = (t: Trajectory) => t.return;

const stats = (episodes: number): RolloutStats => ({
  episodes,
  infraFailures: 0,
  envSteps: episodes,
  sampledTokens: 10 * episodes,
  sampleSeconds: 1,
  envSeconds: 0.5,
});

/** A rollout function that plays the given rounds in order and records which rounds it was asked for. */
function scripted(rounds: number[][][]): { roll: RolloutRound; asked: number[] } {
  const asked: number[] = [];
  const roll: RolloutRound = async (r) => {
    asked.push(r);
    const returns = rounds[r] ?? [];
    return { trajectories: round(returns), stats: stats(returns.flat().length) };
  };
  return { roll, asked };
}

describe("informativeGroups", () => {
  it("keeps the groups whose returns differ, among rollouts the env answered", () => {
    // Group 0 all solved, group 1 all failed, group 2 mixed, group 3 mixed only through a failed
    // episode (episodes 9 and 10: 9 has return 1 but an infrastructure failure, so it is left out and
    // group 3 is one answered rollout, not a comparison), group 4 mixed partial credit.
    const ts = round(
      [
        [1, 1, 1],
        [0, 0, 0],
        [1, 0, 1],
        [1, 0],
        [0.5, 0.25],
      ],
      new Set([9]),
    );
    expect(informativeGroups(ts, byReturn).map((g) => g.map((t) => t.episode))).toEqual([
      [6, 7, 8],
      [11, 12],
    ]);
  });

  it("compares the score the update trains with, not the env's return", () => {
    // Partial credit 0.5 and 0.25 differ, but neither episode succeeded: under `rewardFrom: success`
    // both score 0, so the group carries no advantage. 1 and 0.5 differ in success too.
    const ts = round([
      [0.5, 0.25],
      [1, 0.5],
    ]);
    const success = (t: Trajectory) => Number(t.success);
    expect(informativeGroups(ts, success).map((g) => g[0]?.group)).toEqual([1]);
  });
});

describe("sampleIteration", () => {
  it("without filtering is one round whose rollouts all train, unchanged", async () => {
    const { roll, asked } = scripted([
      [
        [1, 1],
        [0, 1],
      ],
      [[0, 1]],
    ]);
    const s = await sampleIteration({ tasks: 2, filter: false, maxRounds: 3, score: byReturn }, roll);
    expect(asked).toEqual([0]);
    expect(s.train).toBe(s.all);
    expect(s.all.map((t) => [t.group, t.episode])).toEqual([
      [0, 0],
      [0, 1],
      [1, 2],
      [1, 3],
    ]);
    expect(s.metrics).toEqual({});
  });

  it("rolls out rounds until it has `tasks` informative groups, numbering groups and episodes across rounds", async () => {
    // Round 0: groups 0..2, only group 1 informative. Round 1 (groups 3..5): groups 3 and 5 are.
    // Kept: 1, 3, 5, of which the first 2 train. Round 2 is never asked for.
    const { roll, asked } = scripted([
      [
        [1, 1],
        [1, 0],
        [0, 0],
      ],
      [
        [0, 1],
        [1, 1],
        [0, 0.5],
      ],
      [[0, 1]],
    ]);
    const s = await sampleIteration({ tasks: 2, filter: true, maxRounds: 3, score: byReturn }, roll);
    expect(asked).toEqual([0, 1]);
    expect(s.all.map((t) => t.group)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    expect(s.all.map((t) => t.episode)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(s.train.map((t) => t.group)).toEqual([1, 1, 3, 3]);
    // 6 + 6 episodes; 10 sampled tokens each.
    expect(s.stats.episodes).toBe(12);
    expect(s.stats.sampledTokens).toBe(120);
    expect(s.stats.sampleSeconds).toBe(2);
    // 3 informative groups (1, 3, 5) of the 6 rolled out: 3/6. Only the first `tasks` = 2 train.
    expect(s.metrics).toEqual({
      "filter/rounds": 2,
      "filter/kept_groups": 2,
      "filter/informative_frac": 0.5,
    });
  });

  it("stops after maxRounds with what it has, possibly nothing to train on", async () => {
    const { roll, asked } = scripted([[[1, 1]], [[0, 0]], [[1, 1]]]);
    const s = await sampleIteration({ tasks: 1, filter: true, maxRounds: 2, score: byReturn }, roll);
    expect(asked).toEqual([0, 1]);
    expect(s.train).toEqual([]);
    expect(s.all).toHaveLength(4);
    expect(s.metrics).toEqual({ "filter/rounds": 2, "filter/kept_groups": 0, "filter/informative_frac": 0 });
  });
});
