import { hashString, type Rng, rng } from "../../shared/random.js";
import type { Passage, SearchTask } from "./task.js";
import {
  DEFAULT_WORLD_SIZE,
  generateWorld,
  type World,
  type WorldSize,
  worldNames,
  worldPassages,
} from "./world.js";

/**
 * Two-hop questions over a generated world, HotpotQA style: `bridge` questions name an entity whose
 * passage leads to a second entity holding the answer; `comparison` questions compare two named
 * entities, each described in its own passage. Either way the supporting passages are two.
 */

type Question = Omit<SearchTask, "id">;
type Template = (w: World, r: Rng) => Question;

const at = <T>(items: readonly T[], i: number): T => items[i] as T;
const any = <T>(r: Rng, items: readonly T[]): T => at(items, r.int(0, items.length - 1));

/** Two different items, re-drawn until `differ` holds (the worlds are large enough for it to). */
function pair<T>(r: Rng, items: readonly T[], differ: (a: T, b: T) => boolean): [T, T] {
  for (;;) {
    const a = any(r, items);
    const b = any(r, items);
    if (a !== b && differ(a, b)) return [a, b];
  }
}

const BRIDGE: Template[] = [
  (w, r) => {
    const work = any(r, w.works);
    const creator = at(w.people, work.creator);
    return {
      question: `In which city was the creator of the ${work.kind} ${work.title} born?`,
      answers: [at(w.cities, creator.city).name],
      supporting: [work.title, creator.name],
      type: "bridge",
    };
  },
  (w, r) => {
    const work = any(r, w.works);
    const creator = at(w.people, work.creator);
    return {
      question: `Which organisation does the creator of ${work.title} work for?`,
      answers: [at(w.orgs, creator.employer).name],
      supporting: [work.title, creator.name],
      type: "bridge",
    };
  },
  (w, r) => {
    const org = any(r, w.orgs);
    const founder = at(w.people, org.founder);
    return {
      question: `In what year was the founder of the ${org.name} born?`,
      answers: [String(founder.born)],
      supporting: [org.name, founder.name],
      type: "bridge",
    };
  },
  (w, r) => {
    const person = any(r, w.people);
    const org = at(w.orgs, person.employer);
    return {
      question: `In which city is the employer of ${person.name} headquartered?`,
      answers: [at(w.cities, org.city).name],
      supporting: [person.name, org.name],
      type: "bridge",
    };
  },
  (w, r) => {
    const org = any(r, w.orgs);
    const city = at(w.cities, org.city);
    return {
      question: `In which country is the ${org.name} headquartered?`,
      answers: [at(w.countries, city.country).name],
      supporting: [org.name, city.name],
      type: "bridge",
    };
  },
];

const COMPARISON: Template[] = [
  (w, r) => {
    const [a, b] = pair(r, w.people, (x, y) => x.born !== y.born);
    return {
      question: `Who was born first, ${a.name} or ${b.name}?`,
      answers: [a.born < b.born ? a.name : b.name],
      supporting: [a.name, b.name],
      type: "comparison",
    };
  },
  (w, r) => {
    const [a, b] = pair(r, w.orgs, (x, y) => x.founded !== y.founded);
    return {
      question: `Which was founded earlier, the ${a.name} or the ${b.name}?`,
      answers: [a.founded < b.founded ? a.name : b.name],
      supporting: [a.name, b.name],
      type: "comparison",
    };
  },
  (w, r) => {
    // Half the pairs share a country, so "no" is not a safe guess.
    const want = r.next() < 0.5;
    const country = (p: World["people"][number]) => at(w.cities, p.city).country;
    const [a, b] = pair(r, w.people, (x, y) => (country(x) === country(y)) === want);
    const same = country(a) === country(b);
    return {
      question: `Are ${a.name} and ${b.name} from the same country?`,
      answers: [same ? "yes" : "no"],
      supporting: [a.name, b.name],
      type: "comparison",
    };
  },
];

/** A one-hop question: the answer stands in the passage of the one entity the question names. */
const oneHop = (title: string, question: string, answer: string): Question => ({
  question,
  answers: [answer],
  supporting: [title],
  type: "1hop",
});

/** One-hop questions (level 1), ten facts over the five kinds of entity. */
const ONE_HOP: Template[] = [
  (w, r) => {
    const p = any(r, w.people);
    const facts = [
      [`In which city was ${p.name} born?`, at(w.cities, p.city).name],
      [`In what year was ${p.name} born?`, String(p.born)],
      [`Which organisation does ${p.name} work for?`, at(w.orgs, p.employer).name],
    ] as const;
    const [q, a] = r.pick(facts);
    return oneHop(p.name, q, a);
  },
  (w, r) => {
    const k = any(r, w.works);
    const facts = [
      [`Who created the ${k.kind} ${k.title}?`, at(w.people, k.creator).name],
      [`In what year was the ${k.kind} ${k.title} made?`, String(k.year)],
    ] as const;
    const [q, a] = r.pick(facts);
    return oneHop(k.title, q, a);
  },
  (w, r) => {
    const o = any(r, w.orgs);
    const facts = [
      [`Who founded the ${o.name}?`, at(w.people, o.founder).name],
      [`In what year was the ${o.name} founded?`, String(o.founded)],
      [`In which city is the ${o.name} headquartered?`, at(w.cities, o.city).name],
    ] as const;
    const [q, a] = r.pick(facts);
    return oneHop(o.name, q, a);
  },
  (w, r) => {
    const c = any(r, w.cities);
    const facts = [
      [`In which country is ${c.name}?`, at(w.countries, c.country).name],
      [`On which river does ${c.name} lie?`, c.river],
    ] as const;
    const [q, a] = r.pick(facts);
    return oneHop(c.name, q, a);
  },
];

/**
 * Difficulty levels, easiest first: 1: one-hop questions over a small world; 2: today's two-hop
 * questions over the same small world; 3: two-hop questions over the full world (the `search` env's
 * tasks since search-world/2). The top level draws exactly as before levels existed.
 */
export const SEARCH_LEVELS = 3;

/** The shape of the worlds below the top level: 236 passages, scaled per split (`SMALL_SCALE`). */
export const SMALL_WORLD_SIZE: WorldSize = { countries: 4, cities: 16, people: 120, orgs: 16, works: 80 };

/**
 * Below the top, each split's world is the small world times this in every count, so every split has
 * the same shape (cities per country, people per city and per organisation). Train is the largest
 * (9,440 names): one small train world had some 600 facts, which a policy learned by heart instead of
 * learning to read (after 12,000 demos a byte-level policy solved 0.105 of train tasks and none of a
 * held-out world's). Test and validation (944 passages) hold enough facts for 1,000 tasks to be
 * mostly distinct.
 */
export const SMALL_SCALE = { train: 40, other: 4 } as const;

/**
 * Task counts of the built-in splits. `validation` has its own world, sharing no name with train or
 * test, for choosing settings and checkpoints: train tasks cannot serve, because a small world's few
 * hundred facts recur across its 10,000 train tasks and a policy can learn them by heart.
 */
export const WORLD_SPLITS = { train: 10_000, test: 1_000, validation: 1_000 } as const;

/** Generator identity: part of the environment's content hash; bump it when generation changes. */
export const WORLD_GENERATOR = "search-world/2";

/** A world with its passages, and each passage's text by title. */
export type IndexedWorld = { world: World; passages: Passage[]; text: Map<string, string> };

export function indexWorld(world: World): IndexedWorld {
  const passages = worldPassages(world);
  return { world, passages, text: new Map(passages.map((p) => [p.title, p.text])) };
}

const worlds = new Map<string, IndexedWorld>();

/** The lower levels' generator: 3 since their worlds grew (`SMALL_SCALE`). */
const SMALL_GENERATOR = "search-world/3";

/** Names a level's generator: `search-world/2` at the top, `search-world/3/l<level>` below. */
export function worldGenerator(level: number = SEARCH_LEVELS): string {
  return level >= SEARCH_LEVELS ? WORLD_GENERATOR : `${SMALL_GENERATOR}/l${level}`;
}

/**
 * Levels whose test split has a world and a task count of its own, larger than `SMALL_SCALE.other`
 * and `WORLD_SPLITS.test`. search-l1 1.3.0: at 1.2.0 its 1,000 test tasks held 693 distinct
 * questions, too few to resolve the few points RL moves a policy by (docs/results/notes.md). Its world
 * is 20 times the small world (4,720 names, between validation's 944 and train's 9,440), so 3,000
 * tasks are mostly distinct. Train and validation stay as they were.
 */
export const LEVEL_TEST_WORLD: Partial<Record<number, { scale: number; tasks: number }>> = {
  1: { scale: 20, tasks: 3_000 },
};

/**
 * Which worlds a level's splits use: `own` (today's) gives a level in `LEVEL_TEST_WORLD` its own test
 * world; `shared` keeps the shared small test world, as search-l1 had until 1.2.0 (its archived
 * version, so that runs recorded against it can still be grouped by task).
 */
export type TestWorld = "own" | "shared";

function ownTestWorld(split: string, level: number, test: TestWorld) {
  return split === "test" && test === "own" ? LEVEL_TEST_WORLD[level] : undefined;
}

/** Task count of a built-in split at `level`. */
export function worldSplitCount(
  split: string,
  level: number = SEARCH_LEVELS,
  test: TestWorld = "own",
): number {
  return ownTestWorld(split, level, test)?.tasks ?? WORLD_SPLITS[split as keyof typeof WORLD_SPLITS] ?? 0;
}

/** What names a split's world apart from the split: "" but for a level's own test world. */
export function worldTag(split: string, level: number = SEARCH_LEVELS, test: TestWorld = "own"): string {
  const own = ownTestWorld(split, level, test);
  return own ? `-x${own.scale}` : "";
}

function cachedWorld(
  key: string,
  size: WorldSize,
  scale: number,
  reserve: () => IndexedWorld[],
): IndexedWorld {
  let entry = worlds.get(key);
  if (!entry) {
    const reserved = reserve().flatMap((w) => worldNames(w.world));
    const scaled = Object.fromEntries(Object.entries(size).map(([k, n]) => [k, n * scale])) as WorldSize;
    entry = indexWorld(generateWorld(hashString(key), scaled, reserved));
    worlds.set(key, entry);
  }
  return entry;
}

/** The world every level below the top (or the top itself) has for `split`, before `LEVEL_TEST_WORLD`. */
function sharedWorld(split: string, level: number): IndexedWorld {
  const small = level < SEARCH_LEVELS;
  const key = small ? `${WORLD_GENERATOR}/small/${split}` : `${WORLD_GENERATOR}/${split}`;
  // The small worlds of other splits reserve the train world's names, so no title is in both (the
  // full worlds, kept as they were published, share a few work titles). Validation, added later,
  // reserves train's and test's at every level.
  const others = split === "validation" ? ["train", "test"] : small && split !== "train" ? ["train"] : [];
  const scale = !small ? 1 : split === "train" ? SMALL_SCALE.train : SMALL_SCALE.other;
  return cachedWorld(key, small ? SMALL_WORLD_SIZE : DEFAULT_WORLD_SIZE, scale, () =>
    others.map((s) => sharedWorld(s, level)),
  );
}

/**
 * The world of a split at `level` (each split has its own, so test entities never appear in
 * training); the levels below the top share one small world per split, scaled by `SMALL_SCALE`, but
 * for a test world of their own (`LEVEL_TEST_WORLD`), which reserves train's and validation's names.
 */
export function splitWorld(
  split: string,
  level: number = SEARCH_LEVELS,
  test: TestWorld = "own",
): IndexedWorld {
  const own = ownTestWorld(split, level, test);
  if (!own) return sharedWorld(split, level);
  return cachedWorld(
    `${WORLD_GENERATOR}/small/test${worldTag(split, level, test)}`,
    SMALL_WORLD_SIZE,
    own.scale,
    () => [sharedWorld("train", level), sharedWorld("validation", level)],
  );
}

/**
 * Question `index` about world `w`: deterministic given `seed`; bridge and comparison in a 3:2 mix. A
 * bridge question whose answer already shows in the first passage (a person born in their employer's
 * city) is re-drawn, so every answer takes both hops.
 */
export function worldQuestion(
  w: IndexedWorld,
  seed: number,
  index: number,
  level: number = SEARCH_LEVELS,
): Omit<SearchTask, "id"> {
  const r = rng(seed ^ Math.imul(index + 1, 0x9e3779b1));
  const templates = level <= 1 ? ONE_HOP : index % 5 < 3 ? BRIDGE : COMPARISON;
  for (;;) {
    const q = r.pick(templates)(w.world, r);
    const first = w.text.get(q.supporting[0] ?? "") ?? "";
    if (q.type !== "bridge" || !first.includes(q.answers[0] ?? "")) return q;
  }
}

/** Task `index` of a built-in split at `level`. */
export function worldTask(
  split: string,
  index: number,
  level: number = SEARCH_LEVELS,
  test: TestWorld = "own",
): SearchTask {
  const seed = hashString(`${worldGenerator(level)}/${split}/task`);
  return { id: `${split}/${index}`, ...worldQuestion(splitWorld(split, level, test), seed, index, level) };
}
