import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../testing/scripted-model.js";
import { Batcher, type Job } from "./batcher.js";

const STOP = 99;
/** Answers each prompt with its ids plus 100, then the stop id. */
const echo = (p: readonly number[]) => [...p.map((t) => t + 100), STOP];
const greedy = (prompt: number[], maxTokens = 10): Job => ({
  prompt,
  n: 1,
  maxTokens,
  temperature: 0,
  topP: 1,
});

describe("Batcher", () => {
  it("puts the requests that wait during a call into the next call, grouped by how they sample", async () => {
    const model = new ScriptedModel({ contextLength: 64 }, echo);
    const sizes: [number, number][] = [];
    const batcher = new Batcher(
      model,
      [STOP],
      32,
      () => 7,
      (rows, requests) => sizes.push([rows, requests]),
    );
    model.hold();
    const a = batcher.submit(greedy([1]));
    await model.entered;
    // Queued while A's call is held: B greedy; C samples without a seed; D greedy with a seed (a
    // seed changes nothing at temperature 0); E greedy with two choices; F samples with a seed.
    const b = batcher.submit(greedy([2, 2]));
    const c = batcher.submit({ ...greedy([3]), temperature: 0.7, topP: 0.9 });
    const d = batcher.submit({ ...greedy([4]), seed: 11 });
    const e = batcher.submit({ ...greedy([5]), n: 2 });
    const f = batcher.submit({ ...greedy([6]), temperature: 0.7, topP: 0.9, seed: 11 });
    model.release();
    const outs = await Promise.all([a, b, c, d, e, f]);
    expect(model.calls.map((k) => k.prompts)).toEqual([[[1]], [[2, 2], [4], [5], [5]], [[3]], [[6]]]);
    // Greedy calls pass seed 0; C's call takes the drawn seed (7), F's call F's own seed.
    expect(model.calls.map((k) => [k.opts.temperature, k.opts.topP, k.opts.seed])).toEqual([
      [0, 1, 0],
      [0, 1, 0],
      [0.7, 0.9, 7],
      [0.7, 0.9, 11],
    ]);
    expect(sizes).toEqual([
      [1, 1],
      [4, 3],
      [1, 1],
      [1, 1],
    ]);
    expect(outs[1]).toEqual([{ tokens: [102, 102, STOP], stopped: true }]);
    expect(outs[4]).toEqual([
      { tokens: [105, STOP], stopped: true },
      { tokens: [105, STOP], stopped: true },
    ]);
  });

  it("ends each row at its own max_tokens or onToken, and never shares a call past the context", async () => {
    const model = new ScriptedModel({ contextLength: 16 }, echo);
    const batcher = new Batcher(model, [STOP], 32);
    model.hold();
    const first = batcher.submit(greedy([0]));
    await model.entered;
    const long = greedy([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 6); // 10 + 6 = 16 fits alone
    const cut = greedy([1, 2, 3, 4], 2); // two tokens of its five
    const wide = greedy([1], 12); // 10 (longest prompt) + 12 > 16: not with `long`
    const ended = { ...greedy([7, 8, 9], 6), onToken: (_: number, t: number) => t === 108 };
    const all = [long, cut, wide, ended].map((j) => batcher.submit(j));
    model.release();
    await first;
    const [l, c, w, e] = await Promise.all(all);
    expect(model.calls.map((k) => k.prompts.length)).toEqual([1, 3, 1]);
    expect(model.calls[1]?.opts.maxNewTokens).toBe(6); // max(6, 2, 6)
    expect(l).toEqual([{ tokens: [101, 102, 103, 104, 105, 106], stopped: false }]);
    expect(c).toEqual([{ tokens: [101, 102], stopped: false }]);
    expect(e).toEqual([{ tokens: [107, 108], stopped: true }]);
    expect(w).toEqual([{ tokens: [101, STOP], stopped: true }]);
  });
});
