import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { saveDataset } from "../data/datasets.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { importHotpotqa, importHotpotqaHf, importMusique } from "./importers.js";
import { searchHotpotqa, searchMusique } from "./index.js";
import { CorpusChunk, SearchTask } from "./task.js";

const shared = { title: "Shared", sentences: ["Shared is a place.", " It is old."] };
const official = [
  {
    _id: "q1",
    question: "Where is Alpha?",
    answer: "Shared",
    type: "bridge",
    supporting_facts: [
      ["Alpha", 0],
      ["Shared", 1],
      ["Alpha", 1],
    ],
    context: [
      ["Alpha", ["Alpha lives in Shared.", " Alpha is tall."]],
      [shared.title, shared.sentences],
    ],
  },
  {
    _id: "q2",
    question: "Is Beta old?",
    answer: "yes",
    type: "comparison",
    supporting_facts: [["Beta", 0]],
    context: [
      ["Beta", ["Beta is old."]],
      [shared.title, shared.sentences],
    ],
  },
];
const hf = official.map((r) => ({
  id: r._id,
  question: r.question,
  answer: r.answer,
  type: r.type,
  supporting_facts: {
    title: r.supporting_facts.map((f) => f[0]),
    sent_id: r.supporting_facts.map((f) => f[1]),
  },
  context: { title: r.context.map((c) => c[0]), sentences: r.context.map((c) => c[1]) },
}));

type Tasks = { split: string; payload: unknown }[];
const questions = (tasks: Tasks, split: string) =>
  tasks.filter((t) => t.split === split).map((t) => SearchTask.parse(t.payload));
const corpus = (tasks: Tasks, split: string) =>
  tasks.filter((t) => t.split === `corpus/${split}`).flatMap((t) => CorpusChunk.parse(t.payload).passages);

describe("HotpotQA importers", () => {
  for (const [name, importer, text] of [
    ["official JSON", importHotpotqa, JSON.stringify(official)],
    ["Hugging Face JSON", importHotpotqaHf, JSON.stringify(hf)],
    ["Hugging Face JSON Lines", importHotpotqaHf, hf.map((r) => JSON.stringify(r)).join("\n")],
  ] as const) {
    it(`reads the ${name} layout: tasks, supporting titles once each, corpus deduplicated by title+text`, () => {
      const r = importer(text, { split: "dev", source: "x.json" });
      if (!r.ok) throw new Error(r.error);
      expect(r.value.name).toBe("hotpotqa");
      const qs = questions(r.value.tasks, "test");
      expect(qs.map((q) => [q.id, q.answers, q.supporting, q.type])).toEqual([
        ["q1", ["Shared"], ["Alpha", "Shared"], "bridge"],
        ["q2", ["yes"], ["Beta"], "comparison"],
      ]);
      // 4 context paragraphs, "Shared" twice with the same text → 3 passages; sentences joined as written.
      expect(corpus(r.value.tasks, "test")).toEqual([
        { title: "Alpha", text: "Alpha lives in Shared. Alpha is tall." },
        { title: "Shared", text: "Shared is a place. It is old." },
        { title: "Beta", text: "Beta is old." },
      ]);
    });
  }

  it("explains what is wrong instead of throwing", () => {
    const src = { source: "f.json" };
    const noSplit = importHotpotqa("[]", src);
    expect(noSplit.ok || noSplit.error).toMatch(/--split/);
    const bad = importHotpotqa("{not json", { ...src, split: "train" });
    expect(bad.ok || bad.error).toMatch(/not JSON/);
    const simplified = importHotpotqa(JSON.stringify([{ question: "q", answer: "a", type: "bridge" }]), {
      ...src,
      split: "dev",
    });
    expect(simplified.ok || simplified.error).toMatch(
      /record 0: .*HotpotQA's official format with answers and context/,
    );
    const weird = importHotpotqa(JSON.stringify(official), { ...src, split: "holdout" });
    expect(weird.ok || weird.error).toMatch(/unknown split "holdout"/);
    const empty = importHotpotqaHf("", { ...src, split: "train" });
    expect(empty.ok || empty.error).toMatch(/no questions/);
  });
});

describe("MuSiQue importer", () => {
  const line = (id: string, answerable: boolean) =>
    JSON.stringify({
      id,
      question: "Who founded the label of X?",
      answer: "Jane Roe",
      answer_aliases: ["J. Roe"],
      answerable,
      paragraphs: [
        { idx: 0, title: "X", paragraph_text: "X is on Label Y.", is_supporting: true },
        { idx: 1, title: "Label Y", paragraph_text: "Label Y was founded by Jane Roe.", is_supporting: true },
        { idx: 2, title: "Noise", paragraph_text: "Unrelated.", is_supporting: false },
      ],
    });

  it("reads paragraphs and aliases, skips unanswerable questions", () => {
    const r = importMusique([line("2hop__1_2", true), line("2hop__3_4", false)].join("\n"), {
      split: "train",
      source: "musique_ans_v1.0_train.jsonl",
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.name).toBe("musique");
    expect(questions(r.value.tasks, "train")).toEqual([
      {
        id: "2hop__1_2",
        question: "Who founded the label of X?",
        answers: ["Jane Roe", "J. Roe"],
        supporting: ["X", "Label Y"],
        type: "2hop",
      },
    ]);
    expect(corpus(r.value.tasks, "train")).toHaveLength(3);
  });

  it("counts an alias as correct, through a served episode over the imported corpus", async () => {
    const db = await openLocalDb(":memory:");
    try {
      const r = importMusique(line("2hop__1_2", true), { split: "train", source: "m.jsonl" });
      if (!r.ok) throw new Error(r.error);
      await saveDataset(db, r.value);
      const rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
      const s = await searchMusique.startSession({ split: "train", index: 0 }, rt);
      const searched = await searchMusique.step(
        {
          session: s.session,
          action: {
            content: '<tool_call>{"name":"search","arguments":{"query":"Label Y founded"}}</tool_call>',
          },
        },
        rt,
      );
      expect(searched.observation.messages[0]?.content).toContain(
        "[1] Label Y\nLabel Y was founded by Jane Roe.",
      );
      const done = await searchMusique.step(
        { session: searched.session, action: { content: "<answer>j roe</answer>" } },
        rt,
      );
      expect(done.reward).toBe(1);
      expect(done.info).toMatchObject({ em: 1, expected: ["Jane Roe", "J. Roe"] });
    } finally {
      db.close();
    }
  });
});

const SAMPLES = "../shared/data/hotpotqa";

describe("the HotpotQA samples in ../shared/data/hotpotqa", () => {
  const dbs: LocalDb[] = [];
  afterAll(() => {
    for (const d of dbs) d.close();
  });

  for (const [file, importer] of [
    ["hotpot_dev_distractor_v1_first53.json", importHotpotqa],
    ["hotpot_dev_distractor_first100_hf_format.json", importHotpotqaHf],
  ] as const) {
    it(`${file}: the expert finds the supporting passages and answers ≥ 95% of questions`, async () => {
      const path = `${SAMPLES}/${file}`;
      if (!existsSync(path))
        throw new Error(`sample data missing: ${path} (the ../shared/data folder beside the repo)`);
      const r = importer(readFileSync(path, "utf8"), { split: "train", source: path });
      if (!r.ok) throw new Error(r.error);
      const db = await openLocalDb(":memory:");
      dbs.push(db);
      await saveDataset(db, r.value);
      const rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
      const n = (await searchHotpotqa.manifest(rt)).splits.train ?? 0;
      const tasks = questions(r.value.tasks, "train");
      expect(n).toBe(tasks.length);
      let solved = 0;
      for (let index = 0; index < n; index++) {
        let { session } = await searchHotpotqa.startSession({ split: "train", index }, rt);
        // The expert searches each supporting title not yet seen in results, then answers: at most one
        // step per title plus the answer when every search finds its passage.
        const direct = new Set(tasks[index]?.supporting).size + 1;
        for (let steps = 1; ; steps++) {
          const { action } = await searchHotpotqa.expert(session, rt);
          const step = await searchHotpotqa.step({ session, action }, rt);
          session = step.session;
          if (step.done) {
            if (step.reward === 1 && steps <= direct) solved++;
            break;
          }
        }
      }
      expect(solved / n).toBeGreaterThanOrEqual(0.95);
    });
  }
});
