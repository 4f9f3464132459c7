import { describe, expect, it } from "vitest";
import { hotpotqaExpert } from "../../tests/data-checks/hotpotqa.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { saveDataset } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { importHotpotqa, importHotpotqaHf, importMusique } from "./importers.js";
import { searchMusique } from "./index.js";
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

describe("the HotpotQA slices in tests/fixtures/hotpotqa", () => {
  for (const [file, layout] of [
    ["hotpot_dev_distractor_v1_first20.json", "official"],
    ["hotpot_dev_distractor_hf_format_54to73.json", "hf"],
  ] as const) {
    it(`${file}: the expert finds the supporting passages and answers at least 19 of the 20 questions`, async () => {
      // 95% of 20 is 19. The whole files (53 and 100 questions) are `npm run check:data`'s.
      const r = await hotpotqaExpert(readFixture("hotpotqa", file), layout, file);
      expect({ questions: r.questions, served: r.served }).toEqual({ questions: 20, served: 20 });
      expect(r.direct).toBeGreaterThanOrEqual(19);
    });
  }
});
