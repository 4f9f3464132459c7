import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../shared/content-hash.js";
import { alfworld, alfworldLevels } from "./alfworld/index.js";
import { ALFWORLD_LEVELS } from "./alfworld/world.js";
import { findBuiltin } from "./builtin.js";
import { playExpert } from "./calculator/expert-play.js";
import { calculator, calculatorLevels, createCalculator } from "./calculator/index.js";
import { CALCULATOR_LEVELS, proceduralTask } from "./calculator/tasks.js";
import { code, codeLevels, createCodeEnvironment } from "./code/index.js";
import { CODE_LEVELS, codeTask } from "./code/tasks.js";
import { openLocalDb } from "./data/local-db.js";
import { defineEnvironment, type Environment, generateSecrets } from "./kit/index.js";
import { search, searchAtLevel, searchLevels } from "./search/index.js";
import { SEARCH_LEVELS, splitWorld, worldTask } from "./search/questions.js";
import { builtinCatalog, builtinGoal, WEBSHOP_LEVEL_CATALOG, WEBSHOP_LEVELS } from "./webshop/generator.js";
import { createWebshop, webshop, webshopLevels, webshopQueryWorded } from "./webshop/index.js";

/** Each procedural env's levels, easiest first; the last is the env itself (its top level). */
const FAMILIES: Record<string, readonly Environment[]> = {
  calculator: [...calculatorLevels, calculator],
  code: [...codeLevels, code],
  search: [...searchLevels, search],
  webshop: [...webshopLevels, webshop],
  alfworld: [...alfworldLevels, alfworld],
};
const TOP: Record<string, number> = {
  calculator: CALCULATOR_LEVELS,
  code: CODE_LEVELS,
  search: SEARCH_LEVELS,
  webshop: WEBSHOP_LEVELS,
  alfworld: ALFWORLD_LEVELS,
};

const runtime = { bindings: {} };
const first = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
const digest = (value: unknown) => sha256Hex(canonicalJson(value));

describe("difficulty levels of the procedural envs", () => {
  it("are served as <env>-l<k> below the top, the top being the env itself, each a built-in", () => {
    for (const [base, envs] of Object.entries(FAMILIES)) {
      expect(envs.map((e) => e.name)).toEqual([
        ...first((TOP[base] ?? 0) - 1, (i) => `${base}-l${i + 1}`),
        base,
      ]);
      for (const env of envs) expect(findBuiltin(env.name)).toBe(env);
    }
  });

  it("have one content hash each, the top level's unchanged whether its level is given or not", async () => {
    for (const envs of Object.values(FAMILIES)) {
      const hashes = await Promise.all(envs.map((e) => e.contentHash(runtime)));
      expect(new Set(hashes).size).toBe(envs.length);
    }
    // The top level is kept out of the config, so giving it explicitly is the same env.
    const same = async (a: Environment, b: Environment) =>
      expect(await a.contentHash(runtime)).toBe(await b.contentHash(runtime));
    await same(createCalculator({ ...calculator.definition.config, level: CALCULATOR_LEVELS }), calculator);
    await same(createCodeEnvironment({ ...code.definition.config, level: CODE_LEVELS }), code);
    await same(searchAtLevel(SEARCH_LEVELS), search);
    await same(createWebshop({ level: WEBSHOP_LEVELS }), webshop);
    expect(() => createCalculator({ ...calculator.definition.config, level: 0 })).toThrow(RangeError);
    expect(() => createWebshop({ level: 4 })).toThrow(RangeError);
  });

  it("reproduce today's tasks at the top level: the first 200 of each split hash as before levels existed", async () => {
    // Each constant is sha256 of the canonical JSON of the first 200 tasks of the split, computed by
    // this same expression on commit 0667038, the last commit before levels existed.
    const webshopTask = (split: string) => (i: number) => builtinGoal(builtinCatalog(1000), split, i);
    const pinned: [string, (i: number) => unknown, string][] = [
      [
        "calculator/train",
        (i) => proceduralTask("train", i),
        "1b5db986e8994eafb8293ff2ad7ce7b8b24bd770e36ce38991d4a3d0be4fbf81",
      ],
      [
        "calculator/test",
        (i) => proceduralTask("test", i),
        "876770171f74b3777804a2625e93c4edc2767cbc89109dfb62fdee2947d179ab",
      ],
      [
        "code/train",
        (i) => codeTask("train", i),
        "06a7174f58f4c353bd26b84950c5db21aab58711cc5738a416143a2115a8ff69",
      ],
      [
        "code/test",
        (i) => codeTask("test", i),
        "e350a7eb0f1bb1fa9503286a590af094035259187fc615159c2c113c72d7a6de",
      ],
      [
        "search/train",
        (i) => worldTask("train", i),
        "956d666b2686d2a288b7c9bf8317ca9d410220c7af27f79d968725af20125d4b",
      ],
      [
        "search/test",
        (i) => worldTask("test", i),
        "7c06243516edf96853fd855e284814fbca46fa7a4d4b94d577acea2f58a57637",
      ],
      [
        "webshop/train",
        webshopTask("train"),
        "193c1133d260b015900827bef85fe3efe4315883951d61178dd9a701529cc68e",
      ],
      [
        "webshop/test",
        webshopTask("test"),
        "e8543ac2ecd10eff9a7cc51b6023cbef13f83f21d700fcdc4b712763d74adf5e",
      ],
    ];
    for (const [name, make, hash] of pinned) expect(await digest(first(200, make)), name).toBe(hash);
    // And the built-in envs serve exactly those tasks, with the level given or not.
    expect(first(50, (i) => proceduralTask("train", i, CALCULATOR_LEVELS))).toEqual(
      first(50, (i) => proceduralTask("train", i)),
    );
    expect(await calculator.definition.tasks.get("test", 7, runtime)).toEqual(proceduralTask("test", 7));
    // webshop as it was up to 1.6.0 (archived) serves them; 2.0.0 words the same goals by type.
    const archived = webshopQueryWorded.at(-1);
    expect(archived?.version).toBe("1.6.0");
    expect(await archived?.definition.tasks.get("train", 3, runtime)).toEqual(webshopTask("train")(3));
    const typed = await webshop.definition.tasks.get("train", 3, runtime);
    expect({ ...typed, instruction: "" }).toEqual({ ...webshopTask("train")(3), instruction: "" });
    expect(typed.instruction).not.toBe(webshopTask("train")(3).instruction);
  });

  it("keep train and test disjoint at every level", () => {
    const disjoint = (level: number, question: (split: string, i: number) => string) => {
      const test = new Set(first(1000, (i) => question("test", i)));
      const shared = first(5000, (i) => question("train", i)).filter((q) => test.has(q));
      expect(shared, `level ${level}`).toEqual([]);
    };
    for (let l = 1; l <= CALCULATOR_LEVELS; l++) disjoint(l, (s, i) => proceduralTask(s, i, l).question);
    for (let l = 1; l <= CODE_LEVELS; l++) disjoint(l, (s, i) => codeTask(s, i, l).question);
    for (let l = 1; l <= SEARCH_LEVELS; l++) {
      if (l < SEARCH_LEVELS) disjoint(l, (s, i) => worldTask(s, i, l).question);
      else {
        // The top level, kept as published: a question about a work title both worlds have can recur
        // (2 such questions among these), but about another entity, with another answer.
        const train = new Map(first(5000, (i) => worldTask("train", i)).map((t) => [t.question, t.answers]));
        const recurring = first(1000, (i) => worldTask("test", i)).filter((t) => train.has(t.question));
        expect(recurring.every((t) => /of The [A-Z]/.test(t.question))).toBe(true);
        expect(recurring.filter((t) => train.get(t.question)?.[0] === t.answers[0])).toEqual([]);
      }
      // Each split has its own world. Below the top no title is in both; the top level's worlds, kept as
      // published, share a few "The <Adjective> <Noun>" work titles (14), each with other facts.
      const train = new Set(splitWorld("train", l).passages.map((p) => p.title));
      const shared = splitWorld("test", l).passages.filter((p) => train.has(p.title));
      if (l < SEARCH_LEVELS) expect(shared).toEqual([]);
      else expect(shared.every((p) => p.title.startsWith("The ") && !train.has(p.text))).toBe(true);
    }
    for (let l = 1; l < WEBSHOP_LEVELS; l++) {
      // Every tenth product is a test product; a goal names its product by asin.
      const { size, maxOptions } = WEBSHOP_LEVEL_CATALOG[l] ?? { size: 0, maxOptions: 0 };
      const catalog = builtinCatalog(size, 0, maxOptions);
      const index = new Map(catalog.map((p, i) => [p.asin, i]));
      const of = (split: string, n: number) =>
        first(n, (i) => index.get(builtinGoal(catalog, split, i, l).asin) ?? -1);
      expect(
        of("test", 1000).filter((i) => i % 10 !== 0),
        `level ${l}`,
      ).toEqual([]);
      expect(
        of("train", 5000).filter((i) => i % 10 === 0),
        `level ${l}`,
      ).toEqual([]);
    }
  });

  it("make the lower levels simpler in the way docs/environments.md says", async () => {
    const ops = (l: number) =>
      first(500, (i) => (proceduralTask("train", i, l).calls[0] ?? "").match(/[-+*/]/g)?.length ?? 0);
    expect(new Set(ops(1))).toEqual(new Set([1]));
    expect(new Set(ops(2))).toEqual(new Set([2]));
    expect(Math.max(...ops(3))).toBe(3);
    // Level 1's numbers: sums and differences of numbers up to 20, products from the times table, so
    // nothing in a question exceeds 20 + 20 = 40 or 9 · 9 = 81.
    const numbers = first(
      500,
      (i) => proceduralTask("train", i, 1).question.match(/\d+/g)?.map(Number) ?? [],
    );
    expect(Math.max(...numbers.flat())).toBeLessThanOrEqual(81);
    // Code level 1 is one printed expression, level 2 one loop.
    expect(
      first(200, (i) => codeTask("train", i, 1).program).every((p) => /^console\.log\([^;]*\);$/.test(p)),
    ).toBe(true);
    expect(
      first(200, (i) => codeTask("train", i, 2).program.match(/for \(/g)?.length ?? 0).every((n) => n <= 1),
    ).toBe(true);
    // Search: one supporting passage at level 1, two above; a smaller world below the top.
    expect(new Set(first(200, (i) => worldTask("train", i, 1).supporting.length))).toEqual(new Set([1]));
    expect(new Set(first(200, (i) => worldTask("train", i, 2).supporting.length))).toEqual(new Set([2]));
    // Below the top the small world's counts (4 countries, 16 cities, 120 people, 16 organisations, 80
    // works: 236) are scaled by 40 for train and 4 for test, so a policy cannot learn train by heart;
    // search-l1 1.3.0's test world is 20 times it, for 3,000 mostly distinct test tasks.
    expect(splitWorld("train", 1).passages.length).toBe((4 + 16 + 120 + 16 + 80) * 40);
    expect(splitWorld("test", 2).passages.length).toBe((4 + 16 + 120 + 16 + 80) * 4);
    expect(splitWorld("test", 1).passages.length).toBe((4 + 16 + 120 + 16 + 80) * 20);
    expect(splitWorld("train", 3).passages.length).toBe(8 + 48 + 400 + 60 + 300);
    expect(search.definition.config.topK).toBe(5);
    // Level 1 shows one passage a search (search-l1 1.2.0; 1.1.0 showed three), level 2 three.
    expect(searchLevels.map((e) => e.definition.config.topK)).toEqual([1, 3]);
    expect(searchLevels.map((e) => e.definition.version)).toEqual(["1.3.0", "1.1.0"]);
    // WebShop: at most one option per product below the top, the level's catalog size.
    for (const [l, env] of webshopLevels.entries()) {
      const { size, maxOptions } = WEBSHOP_LEVEL_CATALOG[l + 1] ?? { size: 0, maxOptions: 0 };
      expect(env.definition.config.catalogSize).toBe(size);
      const catalog = builtinCatalog(size, 0, maxOptions);
      expect(Math.max(...catalog.map((p) => Object.keys(p.options).length))).toBe(1);
    }
  });
});

/** A copy of `env` whose expert also acts on the test split, so the test tasks can be checked too. */
const withTestExpert = (env: Environment) =>
  defineEnvironment({ ...env.definition, tasks: { ...env.definition.tasks, heldOut: [] } });

/**
 * The share of expert episodes a level must solve: every one for the oracles, and 0.98 for webshop, whose
 * expert shops from the pages alone: a product that fits the instruction as the pages show it can still
 * score below 1 (a price drawn in its range, a title sharing too few nouns with the goal product's). It
 * solved 300, 300 and 299 of train tasks 0..299 at levels 1, 2, 3 (`npm run bench:levels`).
 */
const MIN_SOLVED: Record<string, number> = { calculator: 1, code: 1, search: 1, webshop: 0.98, alfworld: 1 };

describe("the expert solves every level", () => {
  for (const [base, envs] of Object.entries(FAMILIES)) {
    it(`${base}: the first 50 train and 50 test tasks of each level end by themselves, and enough score 1`, async () => {
      const rt = { bindings: await generateSecrets() };
      const failures: string[] = [];
      for (const env of envs.map(withTestExpert)) {
        for (const split of ["train", "test"]) {
          let solved = 0;
          for (let i = 0; i < 50; i++) {
            const ep = await playExpert(env, rt, split, i);
            if (ep.truncated || ep.toolErrors > 0) failures.push(`${env.name} ${split}/${i}`);
            if (ep.reward === 1) solved++;
          }
          // 1 of 50 is 0.02: every one for the oracles, at least 49 for webshop.
          if (solved < Math.ceil((MIN_SOLVED[base] ?? 1) * 50))
            failures.push(`${env.name} ${split}: ${solved} of 50`);
        }
      }
      expect(failures).toEqual([]);
    }, 120_000);
  }

  it("search and webshop, levels below the top, with their corpus and catalog in SQLite (FTS5): reward 1 on 20 train tasks", async () => {
    const db = await openLocalDb(":memory:");
    try {
      const rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
      const failures: string[] = [];
      for (const [base, envs] of [
        ["search", searchLevels],
        ["webshop", webshopLevels],
      ] as const) {
        for (const env of envs) {
          let solved = 0;
          for (let i = 0; i < 20; i++) if ((await playExpert(env, rt, "train", i)).reward === 1) solved++;
          if (solved < Math.ceil((MIN_SOLVED[base] ?? 1) * 20)) failures.push(`${env.name}: ${solved} of 20`);
        }
      }
      expect(failures).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
