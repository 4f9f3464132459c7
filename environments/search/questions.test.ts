import { describe, expect, it } from "vitest";
import { findBuiltinTasksOf } from "../builtin.js";
import { splitWorld, WORLD_SPLITS, worldSplitCount, worldTag, worldTask } from "./questions.js";
import type { SearchTask } from "./task.js";
import { generateWorld, worldNames } from "./world.js";

describe("generated world", () => {
  it("is deterministic by seed and gives every entity a unique title", () => {
    expect(generateWorld(42)).toEqual(generateWorld(42));
    expect(generateWorld(42)).not.toEqual(generateWorld(43));
    const { passages } = splitWorld("train");
    // 8 countries + 48 cities + 400 people + 60 organisations + 300 works = 816 passages
    expect(passages).toHaveLength(816);
    expect(new Set(passages.map((p) => p.title)).size).toBe(816);
  });

  it("gives train and test different worlds: only a few work titles (The <Adjective> <Noun>) recur", () => {
    const names = (split: string) => {
      const w = splitWorld(split).world;
      return [...w.countries, ...w.cities, ...w.people, ...w.orgs].map((e) => e.name);
    };
    const train = new Set(names("train"));
    expect(names("test").filter((n) => train.has(n))).toEqual([]);
    const trainWorks = new Set(splitWorld("train").world.works.map((w) => w.title));
    const shared = splitWorld("test").world.works.filter((w) => trainWorks.has(w.title));
    expect(shared.length).toBeLessThan(15);
    for (const w of shared) expect(w.title).toMatch(/^The \w+ \w+$/);
  });
});

describe("two-hop questions", () => {
  it("are deterministic by split and index", () => {
    expect(worldTask("train", 123)).toEqual(worldTask("train", 123));
    expect(worldTask("train", 123)).not.toEqual(worldTask("test", 123));
    expect(Object.keys(WORLD_SPLITS)).toEqual(["train", "test", "validation"]);
  });

  it("hold out a validation world that shares no name or title with train or test, at every level", () => {
    for (const level of [1, 3]) {
      const names = (split: string) => worldNames(splitWorld(split, level).world);
      const seen = new Set([...names("train"), ...names("test")]);
      const validation = names("validation");
      // (4 + 16 + 120 + 16 + 80) · 4 = 944 names in level 1's (scaled) world, 816 in the full one.
      expect(validation).toHaveLength(level === 1 ? 944 : 816);
      expect(validation.filter((n) => seen.has(n))).toEqual([]);
      expect(worldTask("validation", 0, level).question).not.toBe(worldTask("train", 0, level).question);
    }
  });

  it("give search-l1 a test world of its own: 20 × 236 names, none of train's or validation's, 3,000 tasks", () => {
    const names = (split: string, level: number) => worldNames(splitWorld(split, level).world);
    const test = names("test", 1);
    expect(test).toHaveLength((4 + 16 + 120 + 16 + 80) * 20);
    const seen = new Set([...names("train", 1), ...names("validation", 1)]);
    expect(test.filter((n) => seen.has(n))).toEqual([]);
    // Level 2 keeps the shared small test world (944 names) and its 1,000 tasks.
    expect(names("test", 2)).toHaveLength(944);
    expect([
      worldSplitCount("test", 1),
      worldSplitCount("test", 2),
      worldSplitCount("validation", 1),
    ]).toEqual([3000, 1000, 1000]);
    expect([worldTag("test", 1), worldTag("test", 2), worldTag("train", 1)]).toEqual(["-x20", "", ""]);
    // More distinct questions than the 693 of 1,000 the shared world gave (2,345 of 3,000 when written).
    const questions = new Set(Array.from({ length: 3000 }, (_, i) => worldTask("test", i, 1).question));
    expect(questions.size).toBeGreaterThan(2000);
    expect(worldTask("test", 0, 1).question).not.toBe(worldTask("test", 0, 2).question);
  });

  it("keep search-l1 1.2.0's test split as an archived env: the shared world's 1,000 tasks, 693 distinct", async () => {
    const archived = findBuiltinTasksOf("search-l1", "1.2.0");
    const today = findBuiltinTasksOf("search-l1", "1.3.0");
    expect([archived?.version, today?.version]).toEqual(["1.2.0", "1.3.0"]);
    const source = archived?.definition.tasks;
    const runtime = { bindings: {} };
    expect(await source?.count("test", runtime)).toBe(1000);
    const questions = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const task = (await source?.get("test", i, runtime)) as SearchTask;
      expect(task).toEqual(worldTask("test", i, 1, "shared"));
      questions.add(task.question);
    }
    expect(questions.size).toBe(693);
    // Its train tasks are today's, and its test world is level 2's.
    expect(await source?.get("train", 7, runtime)).toEqual(worldTask("train", 7, 1));
    expect(splitWorld("test", 1, "shared")).toBe(splitWorld("test", 2));
  });

  it("mix bridge and comparison 3:2: of tasks 0..999, 600 bridge and 400 comparison", () => {
    const types = Array.from({ length: 1000 }, (_, i) => worldTask("train", i).type);
    expect(types.filter((t) => t === "bridge")).toHaveLength(600);
    expect(types.filter((t) => t === "comparison")).toHaveLength(400);
  });

  it("need both supporting passages: a bridge answer is in the second passage, never in the first", () => {
    for (const split of ["train", "test"]) {
      const byTitle = new Map(splitWorld(split).passages.map((p) => [p.title, p.text]));
      for (let i = 0; i < 500; i++) {
        const t = worldTask(split, i);
        expect(t.supporting).toHaveLength(2);
        const [first, second] = t.supporting.map((s) => byTitle.get(s));
        expect(first, `${t.id}: ${t.supporting[0]}`).toBeDefined();
        expect(second, `${t.id}: ${t.supporting[1]}`).toBeDefined();
        const answer = t.answers[0] as string;
        if (t.type === "bridge") {
          expect(second).toContain(answer);
          expect(first).not.toContain(answer);
        } else if (answer !== "yes" && answer !== "no") {
          expect(t.supporting).toContain(answer);
        }
      }
    }
  });
});

describe("comparison balance", () => {
  it("'same country?' questions answer yes about half the time: 40–60% of 200", () => {
    const answers = Array.from({ length: 5000 }, (_, i) => worldTask("train", i))
      .filter((t) => t.question.startsWith("Are "))
      .slice(0, 200)
      .map((t) => t.answers[0]);
    expect(answers).toHaveLength(200);
    const yes = answers.filter((a) => a === "yes").length;
    expect(yes).toBeGreaterThanOrEqual(80);
    expect(yes).toBeLessThanOrEqual(120);
  });
});
