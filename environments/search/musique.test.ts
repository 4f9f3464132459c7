import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatHermesCall, parseHermesCalls } from "../../shared/tool-calls.js";
import { saveDataset } from "../data/datasets.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { type Environment, generateSecrets } from "../kit/index.js";
import { importMusique } from "./importers.js";
import { createSearchEnvironment, EXPERT_NOT_FOUND, searchMusique } from "./index.js";
import { f1Score, musiqueF1, scoreAnswer } from "./normalize.js";
import { datasetSource } from "./sources.js";
import { SearchTask } from "./task.js";

// A constructed MuSiQue-format fixture (no MuSiQue data is available to this repository; see its README):
// record 0 lists "no" as an alias of Norway, record 1's "Oklahoma" passage is outranked by six
// others naming Oklahoma, and record 2's "Kansas" passage is ranked 4th behind two long passages.
const FIXTURE = readFileSync(
  new URL("../../tests/fixtures/musique/constructed.jsonl", import.meta.url),
  "utf8",
);
const imported = importMusique(FIXTURE, { split: "train", source: "constructed.jsonl" });
if (!imported.ok) throw new Error(imported.error);
const tasks = imported.value.tasks.filter((t) => t.split === "train").map((t) => SearchTask.parse(t.payload));
const NORWAY = 0;
const OKLAHOMA = 1;
const KANSAS = 2;

describe("MuSiQue's answer metric for search-musique", () => {
  it('"no answer" against Norway with the alias "no": F1 2/3 as MuSiQue computes it, 0 by HotpotQA\'s rule', () => {
    const golds = tasks[NORWAY]?.answers ?? [];
    expect(golds).toEqual(["Norway", "no", "Kingdom of Norway"]);
    // Against "no": prediction tokens [no, answer], gold [no], 1 in common → P = 1/2, R = 1/1,
    // F1 = 2·(1/2)·1 / (1/2 + 1) = 1 / 1.5 = 2/3. "Norway" and "kingdom of norway" share no token: 0.
    expect(musiqueF1("no answer", "no")).toBeCloseTo((2 * (1 / 2) * 1) / (1 / 2 + 1), 12);
    expect(musiqueF1("no answer", "Norway")).toBe(0);
    expect(scoreAnswer("no answer", golds, "musique")).toEqual({ em: 0, f1: 2 / 3 });
    // HotpotQA's script: gold "no" is a yes/no answer and the prediction differs, so 0.
    expect(f1Score("no answer", "no")).toBe(0);
    expect(scoreAnswer("no answer", golds, "hotpotqa")).toEqual({ em: 0, f1: 0 });
  });

  it("two empty answers agree in MuSiQue's metric (SQuAD's rule), not in HotpotQA's", () => {
    expect(musiqueF1("", "")).toBe(1);
    expect(musiqueF1("", "Norway")).toBe(0);
    expect(f1Score("", "")).toBe(0);
    expect(musiqueF1("yes", "yes it is")).toBeCloseTo((2 * 1 * (1 / 3)) / (1 + 1 / 3), 12); // P 1/1, R 1/3 → 0.5
  });
});

let db: LocalDb;
let rt: { bindings: Record<string, unknown> };
beforeAll(async () => {
  db = await openLocalDb(":memory:");
  if (!imported.ok) throw new Error("unreachable");
  await saveDataset(db, imported.value);
  rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
});
afterAll(() => db.close());

const say = (env: Environment, session: string, content: string) =>
  env.step({ session, action: { content } }, rt as never);
const search = (query: string) => formatHermesCall("search", { query });

describe("search-musique scores with MuSiQue's metric, served over the imported corpus", () => {
  it('reports F1 2/3 for "no answer" on the Norway record', async () => {
    const s = await searchMusique.startSession({ split: "train", index: NORWAY }, rt as never);
    const done = await say(searchMusique, s.session, "<answer>no answer</answer>");
    expect(done.info).toMatchObject({ em: 0, f1: 2 / 3 });
  });
});

/** Plays the expert to the end: every query it sent, every observation, and the final step. */
async function playExpert(index: number) {
  let { session } = await searchMusique.startSession({ split: "train", index }, rt as never);
  const queries: string[] = [];
  const observations: string[] = [];
  for (;;) {
    const { action } = await searchMusique.expert(session, rt as never);
    for (const call of parseHermesCalls(action.content ?? "")) {
      if (call.ok) queries.push((call.arguments as { query: string }).query);
    }
    const step = await searchMusique.step({ session, action }, rt as never);
    if (step.done) return { queries, observations, answer: action.content ?? "", step };
    observations.push(String(step.observation.messages[0]?.content ?? ""));
    session = step.session;
  }
}

/** The passages of the fixture by title, to check which were shown whole. */
const passages = new Map<string, string>(
  FIXTURE.trim()
    .split("\n")
    .flatMap((l) =>
      (JSON.parse(l) as { paragraphs: { title: string; paragraph_text: string }[] }).paragraphs.map(
        (p) => [p.title, p.paragraph_text] as const,
      ),
    ),
);

describe("the MuSiQue expert", () => {
  for (const index of [NORWAY, OKLAHOMA, KANSAS]) {
    it(`record ${index}: never repeats a search and answers only after every supporting passage was shown whole`, async () => {
      const task = tasks[index] as SearchTask;
      const r = await playExpert(index);
      expect(new Set(r.queries).size).toBe(r.queries.length);
      for (const title of task.supporting) {
        const whole = `${title}\n${passages.get(title)}`;
        expect(
          r.observations.some((o) => o.includes(whole)),
          `${title} shown whole`,
        ).toBe(true);
      }
      expect(r.answer).toBe(`<answer>${task.answers[0]}</answer>`);
      expect(r.step.reward).toBe(1);
    });
  }

  it('finds "Oklahoma", which six other passages outrank for its title, with the title and the question', async () => {
    const r = await playExpert(OKLAHOMA);
    // Before the fix: ["Tulsa Ballet", "Oklahoma", "Oklahoma", "Oklahoma", "Oklahoma"], then the answer.
    expect(r.queries).toEqual([
      "Tulsa Ballet",
      `Oklahoma ${tasks[OKLAHOMA]?.question}`, // the title alone would not show it
    ]);
  });

  it("says it did not find the answer, without repeating a search, when a passage cannot be shown whole", async () => {
    // One record whose second supporting passage is longer than any observation: never shown whole.
    const huge = `Zyxtown is a town. ${"It has a long history. ".repeat(120)}`;
    const line = JSON.stringify({
      id: "2hop__huge",
      question: "Where is the museum of Zyxtown?",
      answer: "Qwerty Hill",
      answer_aliases: [],
      answerable: true,
      paragraphs: [
        { title: "Zyx Museum", paragraph_text: "The Zyx Museum is in Zyxtown.", is_supporting: true },
        { title: "Zyxtown", paragraph_text: huge, is_supporting: true },
      ],
    });
    const one = importMusique(line, { split: "train", source: "huge.jsonl" });
    if (!one.ok) throw new Error(one.error);
    const local = await openLocalDb(":memory:");
    try {
      await saveDataset(local, one.value);
      const env = createSearchEnvironment({
        name: "search-musique-huge",
        description: "one record",
        source: datasetSource("musique", "import it"),
      });
      const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: local } };
      let { session } = await env.startSession({ split: "train", index: 0 }, runtime);
      const actions: string[] = [];
      for (;;) {
        const { action } = await env.expert(session, runtime);
        actions.push(action.content ?? "");
        const step = await env.step({ session, action }, runtime);
        if (step.done) break;
        session = step.session;
      }
      expect(new Set(actions).size).toBe(actions.length);
      expect(actions.at(-1)).toBe(`<answer>${EXPERT_NOT_FOUND}</answer>`);
    } finally {
      local.close();
    }
  });
});

describe("process reward pays only for supporting passages shown whole", () => {
  const env = createSearchEnvironment({
    name: "search-musique-process",
    description: "MuSiQue with process reward",
    source: datasetSource("musique", "import it"),
    config: { processReward: true, metric: "musique" },
  });

  it('the Kansas passage, ranked 4th for "Flint Hills Opera Company", is cut, so searching it later still pays', async () => {
    const s = await env.startSession({ split: "train", index: KANSAS }, rt as never);
    const first = await say(env, s.session, search("Flint Hills Opera Company"));
    const text = String(first.observation.messages[0]?.content ?? "");
    // Ranks: the company (whole), two long passages, then Kansas, cut to fit: its title shows, its
    // whole text does not.
    expect(text).toContain("[4] Kansas\n");
    expect(text).not.toContain(`Kansas\n${passages.get("Kansas")}`);
    expect(first.reward).toBeCloseTo(0.1, 12); // for the company's passage
    const second = await say(env, first.session, search("Kansas"));
    expect(String(second.observation.messages[0]?.content)).toContain(
      `[1] Kansas\n${passages.get("Kansas")}`,
    );
    // Before the fix Kansas counted as found by the first search (it was not even visible then),
    // and this search paid 0.
    expect(second.reward).toBeCloseTo(0.1, 12);
  });
});
