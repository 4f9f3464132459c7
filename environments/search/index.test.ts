import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EdgegymError } from "../../shared/errors.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { type Environment, generateSecrets } from "../kit/index.js";
import type { EnvRuntime } from "../kit/types.js";
import { createSearchEnvironment, search, searchAtLevel } from "./index.js";
import { worldTask } from "./questions.js";
import { worldSource } from "./sources.js";

let secrets: Record<string, string>;
let db: LocalDb;
beforeAll(async () => {
  secrets = await generateSecrets();
  db = await openLocalDb(":memory:");
});
afterAll(() => db.close());

const call = (query: string) => ({ content: formatHermesCall("search", { query }) });

/** Plays the expert to the end; returns the rewards of every step. */
async function playExpert(env: Environment, rt: EnvRuntime, split: string, index: number) {
  let { session } = await env.startSession({ split, index }, rt);
  const rewards: number[] = [];
  for (;;) {
    const { action } = await env.expert(session, rt);
    const step = await env.step({ session, action }, rt);
    rewards.push(step.reward);
    session = step.session;
    if (step.done) return { rewards, truncated: step.truncated, info: step.info };
  }
}

describe("search environment", () => {
  it("declares one search tool, the built-in splits and maxSteps 6", async () => {
    const m = await search.manifest({ bindings: secrets });
    expect(m.tools.map((t) => t.function.name)).toEqual(["search"]);
    expect(m.splits).toEqual({ train: 10_000, test: 1_000, validation: 1_000 });
    expect(m.limits.maxSteps).toBe(6);
    expect(m.reward).toEqual({ min: 0, max: 1 });
  });

  for (const [where, bindings] of [
    ["FTS5 in local SQLite", () => ({ ...secrets, EDGEGYM_DB: db })],
    ["memory (no database)", () => secrets],
  ] as const) {
    it(`the expert solves every one of train tasks 0..149 in 3 steps or fewer (${where})`, async () => {
      const rt = { bindings: bindings() };
      for (let index = 0; index < 150; index++) {
        const { rewards, truncated } = await playExpert(search, rt, "train", index);
        expect(rewards.at(-1), `train/${index}`).toBe(1);
        expect(truncated).toBe(false);
        expect(rewards.length).toBeLessThanOrEqual(3);
      }
    });
  }

  it("starts the user off with the question and a system prompt naming the tool and answer format", async () => {
    const s = await search.startSession({ split: "test", index: 3 }, { bindings: secrets });
    expect(s.observation.messages[1]).toEqual({ role: "user", content: worldTask("test", 3).question });
    expect(s.observation.messages[0]?.content).toMatch(/<tool_call>.*"search".*<answer>/s);
  });

  it("level 1 shows the one best passage a search and says so; level 2 shows three", async () => {
    const rt = { bindings: secrets };
    for (const [level, passages, says] of [
      [1, 1, "it returns the best passage."],
      [2, 3, "it returns the 3 best passages."],
    ] as const) {
      const env = searchAtLevel(level);
      const { session, observation } = await env.startSession({ split: "train", index: 0 }, rt);
      expect(observation.messages[0]?.content).toContain(says);
      const { action } = await env.expert(session, rt);
      const step = await env.step({ session, action }, rt);
      const shown = String(step.observation.messages.at(-1)?.content ?? "");
      // Passages are numbered "[1] title", "[2] title", … (observation.ts).
      expect(shown.match(/^\[\d+\] /gm)?.length, shown).toBe(passages);
    }
  });

  it("scores EM by default, F1 when configured; F1 is in info either way", async () => {
    const rt = { bindings: { ...secrets, EDGEGYM_DB: db } };
    // The first "Which organisation does the creator of … work for?" task: its answer is "<Name> <Suffix>".
    const index = Array.from({ length: 100 }, (_, i) => i).find((i) =>
      worldTask("train", i).question.startsWith("Which organisation"),
    );
    if (index === undefined) throw new Error("no organisation question among train 0..99");
    const gold = worldTask("train", index).answers[0] as string;
    expect(gold.split(" ")).toHaveLength(2);
    const partial = `<answer>${gold.split(" ")[0]}</answer>`; // 1 of 2 gold tokens: P = 1, R = 1/2, F1 = 2/3
    const f1Env = createSearchEnvironment({
      name: "search-f1",
      description: "d",
      source: worldSource,
      config: { reward: "f1" },
    });
    for (const [env, expected] of [
      [search, 0],
      [f1Env, 2 / 3],
    ] as const) {
      const s = await env.startSession({ split: "train", index }, rt);
      const r = await env.step({ session: s.session, action: { content: partial } }, rt);
      expect(r.done).toBe(true);
      expect(r.reward).toBeCloseTo(expected, 12);
      expect(r.info).toMatchObject({ em: 0, expected: [gold] });
      expect(r.info.f1).toBeCloseTo(2 / 3, 12);
      // Success is an exact match under either reward: the F1 env's outcome 2/3 > 0 is not solved.
      expect(r.info.success).toBe(false);
    }
    const s = await f1Env.startSession({ split: "train", index }, rt);
    const exact = await f1Env.step(
      { session: s.session, action: { content: `<answer>${gold}</answer>` } },
      rt,
    );
    expect([exact.reward, exact.info.success]).toEqual([1, true]);
  });

  it("a final message without <answer> scores 0", async () => {
    const rt = { bindings: secrets };
    const s = await search.startSession({ split: "train", index: 0 }, rt);
    const r = await search.step(
      { session: s.session, action: { content: worldTask("train", 0).answers[0] ?? "" } },
      rt,
    );
    expect(r).toMatchObject({ done: true, reward: 0, info: { answer: null, em: 0, f1: 0 } });
  });

  it("process reward (opt-in): +0.1 per search that surfaces a new supporting passage, capped", async () => {
    const rt = { bindings: { ...secrets, EDGEGYM_DB: db } };
    const make = (cap: number) =>
      createSearchEnvironment({
        name: `search-pr-${cap}`,
        description: "d",
        source: worldSource,
        config: { processReward: true, processRewardCap: cap },
      });
    // train/0 is a bridge question: two supporting passages, found by two expert searches.
    // cap 0.3: 0.1 + 0.1 + outcome 1 = [0.1, 0.1, 1]; cap 0.15: 0.1 then min(0.1, 0.15 − 0.1) = 0.05.
    const full = await playExpert(make(0.3), rt, "train", 0);
    expect(full.rewards.map((r) => Number(r.toFixed(10)))).toEqual([0.1, 0.1, 1]);
    const capped = await playExpert(make(0.15), rt, "train", 0);
    expect(capped.rewards.map((r) => Number(r.toFixed(10)))).toEqual([0.1, 0.05, 1]);
    // Off by default: the same episode pays only the outcome.
    expect((await playExpert(search, rt, "train", 0)).rewards).toEqual([0, 0, 1]);
    // Repeating a search that found nothing new earns nothing.
    const env = make(0.3);
    const task = worldTask("train", 0);
    const s = await env.startSession({ split: "train", index: 0 }, rt);
    const a = await env.step({ session: s.session, action: call(task.supporting[0] ?? "") }, rt);
    const b = await env.step({ session: a.session, action: call(task.supporting[0] ?? "") }, rt);
    expect([a.reward, b.reward]).toEqual([0.1, 0]);
  });

  it("cuts long observations to maxObservationChars with a note", async () => {
    const env = createSearchEnvironment({
      name: "search-short",
      description: "d",
      source: worldSource,
      config: { maxObservationChars: 80 },
    });
    const rt = { bindings: secrets };
    const s = await env.startSession({ split: "train", index: 0 }, rt);
    const r = await env.step({ session: s.session, action: call("painter novelist composer") }, rt);
    const text = r.observation.messages[0]?.content ?? "";
    expect(text).toMatch(/\[observation truncated: showing 80 of \d+ characters\]/);
    const shown = /<tool_response>\n([\s\S]*)\n\[observation truncated/.exec(text)?.[1] ?? "";
    expect(shown).toHaveLength(80);
  });

  it("answers an empty or wordless query with a clear message, not an error", async () => {
    const rt = { bindings: { ...secrets, EDGEGYM_DB: db } };
    const s = await search.startSession({ split: "train", index: 0 }, rt);
    const r = await search.step({ session: s.session, action: call('"*-( )') }, rt);
    expect(r.observation.messages[0]?.content).toContain('No passages found for ""*-( )".');
    expect(r.info.invalid_calls).toBe(0);
  });

  it("survives arbitrary actions (fast-check): every step returns a result within the reward range", async () => {
    const rt = { bindings: { ...secrets, EDGEGYM_DB: db } };
    const { session } = await search.startSession({ split: "train", index: 5 }, rt);
    const query = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.constantFrom('"', "NEAR(", "*", "-", ""),
    );
    const action = fc.oneof(
      fc.string().map((content) => ({ content })),
      query.map((q) => call(q)),
      fc.anything().map((args) => ({
        content: `<tool_call>${JSON.stringify({ name: "search", arguments: args })}</tool_call>`,
      })),
      fc.record({ name: fc.constantFrom("search", "lookup"), args: fc.string() }).map(({ name, args }) => ({
        tool_calls: [{ id: "c1", type: "function" as const, function: { name, arguments: args } }],
      })),
    );
    await fc.assert(
      fc.asyncProperty(action, async (a) => {
        try {
          const r = await search.step({ session, action: a }, rt);
          expect(r.reward).toBeGreaterThanOrEqual(0);
          expect(r.reward).toBeLessThanOrEqual(1);
        } catch (e) {
          expect(e).toBeInstanceOf(EdgegymError);
          expect((e as EdgegymError).code).toBe("action_too_large");
        }
      }),
      { numRuns: 100 },
    );
  });
});
