import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeConformance } from "../../tests/conformance/index.js";
import { saveDataset } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import { envSql } from "../data/sql.js";
import { createEnvironmentApp } from "../kit/index.js";
import { ensureCorpus, ftsRetriever } from "./fts-store.js";
import { importHotpotqa, importMusique } from "./importers.js";
import { search, searchHotpotqa, searchMusique } from "./index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};

function d1() {
  const db = envSql({ bindings: { DB: env.DB } });
  if (!db) throw new Error("no D1 binding DB");
  return db;
}

// First in the file, while the FTS5 table holds nothing else (bm25 statistics span the whole table).
describe("FTS5 BM25 on real D1 inside workerd", () => {
  it("scores like the formula: 'apple' over 3 docs = ln(5/3)·3·2.2/4.2 = 0.802726", async () => {
    const r = await ensureCorpus(d1(), "fruit", "h", () => [
      { title: "Apple", text: "apple pie" },
      { title: "Pear", text: "pear tart" },
      { title: "Plum", text: "plum jam" },
    ]);
    if (!r.ok) throw new Error(r.error);
    const hits = await ftsRetriever(d1(), r.value).search("apple", 5);
    if (!hits.ok) throw new Error(hits.error);
    expect(hits.value.map((h) => h.title)).toEqual(["Apple"]);
    expect(hits.value[0]?.score).toBeCloseTo(0.802726, 5);
  });

  it("loads a corpus within D1's 100-parameter statements, once: 100 passages", async () => {
    const passages = Array.from({ length: 100 }, (_, i) => ({
      title: `Doc ${i}`,
      text: `body ${i} ${"x".repeat(3000)}`,
    }));
    const r = await ensureCorpus(d1(), "big", "h", () => passages);
    if (!r.ok) throw new Error(r.error);
    const again = await ensureCorpus(d1(), "big", "h", () => {
      throw new Error("a finished corpus is not loaded again");
    });
    expect(again).toEqual(r);
    const [row] = await env.DB.prepare(
      "SELECT count(*) AS n FROM search_passages WHERE rowid BETWEEN ? AND ?",
    )
      .bind(r.value.id * 2 ** 32, r.value.id * 2 ** 32 + 2 ** 32 - 1)
      .raw<[number]>();
    expect(row?.[0]).toBe(100);
  });

  it("never fails on hostile queries (fast-check)", async () => {
    const r = await ensureCorpus(d1(), "fruit", "h", () => []);
    if (!r.ok) throw new Error(r.error);
    const retriever = ftsRetriever(d1(), r.value);
    const hostile = fc.constantFrom(
      '"',
      "*",
      "NEAR(",
      "-",
      "",
      "AND OR NOT",
      "^",
      "title:",
      '""',
      "\u0000",
      "(a",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(hostile, fc.string({ unit: "binary" })), { maxLength: 6 }),
        async (parts) => {
          const res = await retriever.search(parts.join(" "), 5);
          expect(res.ok).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describeConformance("search through the worker entry (SELF.fetch), FTS5 on D1", () => ({
  baseUrl: "http://edgegym.test/envs/search",
  fetch: (input, init) => SELF.fetch(input, init),
  secrets,
}));

const app = createEnvironmentApp(search);
describeConformance("search inside workerd, FTS5 on D1", () => ({
  baseUrl: "http://edgegym.test",
  fetch: async (input, init) => app.fetch(new Request(input, init), env),
  secrets,
}));

describe("search-hotpotqa inside workerd", () => {
  it("plays an imported HotpotQA question over the D1 corpus", async () => {
    const record = {
      _id: "q1",
      question: "Where was the director of Film X born?",
      answer: "Brivel",
      supporting_facts: [
        ["Film X", 0],
        ["Ana Lor", 0],
      ],
      context: [
        ["Film X", ["Film X is directed by Ana Lor."]],
        ["Ana Lor", ["Ana Lor was born in Brivel."]],
        ["Other", ["Nothing here."]],
      ],
    };
    const r = importHotpotqa(JSON.stringify([record]), { split: "train", source: "x.json" });
    const db = envDb({ bindings: { DB: env.DB } });
    if (!r.ok || !db) throw new Error("import failed");
    await saveDataset(db, r.value);
    const rt = { bindings: { ...env } };
    let { session } = await searchHotpotqa.startSession({ split: "train", index: 0 }, rt);
    const seen: string[] = [];
    for (;;) {
      const { action } = await searchHotpotqa.expert(session, rt);
      const step = await searchHotpotqa.step({ session, action }, rt);
      seen.push(step.observation.messages[0]?.content ?? "");
      session = step.session;
      if (step.done) {
        expect(step.reward).toBe(1);
        break;
      }
    }
    expect(seen[0]).toContain("[1] Film X\nFilm X is directed by Ana Lor.");
  });
});

describe("search-musique inside workerd", () => {
  const p = (title: string, paragraph_text: string, is_supporting = false) => ({
    title,
    paragraph_text,
    is_supporting,
  });
  // As tests/fixtures/musique/constructed.jsonl: "no" is an alias of Norway, and six passages
  // outrank the "Oklahoma" passage for its own title.
  const records = [
    {
      id: "2hop__w_norway",
      question: "In which country was Grieg born?",
      answer: "Norway",
      answer_aliases: ["no"],
      paragraphs: [p("Edvard Grieg", "Edvard Grieg was born in Bergen, Norway.", true)],
    },
    {
      id: "2hop__w_oklahoma",
      question: "In what year was the state where the Tulsa Ballet performs admitted to the Union?",
      answer: "1907",
      answer_aliases: [],
      paragraphs: [
        p("Tulsa Ballet", "Tulsa Ballet is a ballet company in Tulsa, a city of Oklahoma.", true),
        p(
          "Oklahoma",
          `Oklahoma was admitted to the Union in 1907. ${"It is a state of plains. ".repeat(8)}`,
          true,
        ),
        ...["City", "River", "Panhandle", "State University", "Territory", "Sooners"].map((s) =>
          p(`Oklahoma ${s}`, `Oklahoma ${s} is in Oklahoma.`),
        ),
      ],
    },
  ];

  it("scores with MuSiQue's metric and its expert never repeats a search", async () => {
    const r = importMusique(records.map((x) => JSON.stringify(x)).join("\n"), {
      split: "train",
      source: "m.jsonl",
    });
    const db = envDb({ bindings: { DB: env.DB } });
    if (!r.ok || !db) throw new Error("import failed");
    await saveDataset(db, r.value);
    const rt = { bindings: { ...env } };
    const norway = await searchMusique.startSession({ split: "train", index: 0 }, rt);
    const scored = await searchMusique.step(
      { session: norway.session, action: { content: "<answer>no answer</answer>" } },
      rt,
    );
    // Tokens [no, answer] against [no]: P = 1/2, R = 1, F1 = 2·(1/2)·1 / (3/2) = 2/3 (HotpotQA's rule: 0).
    expect(scored.info).toMatchObject({ f1: 2 / 3 });

    let { session } = await searchMusique.startSession({ split: "train", index: 1 }, rt);
    const actions: string[] = [];
    for (;;) {
      const { action } = await searchMusique.expert(session, rt);
      actions.push(action.content ?? "");
      const step = await searchMusique.step({ session, action }, rt);
      session = step.session;
      if (step.done) {
        expect(step.reward).toBe(1);
        break;
      }
    }
    expect(new Set(actions).size).toBe(actions.length);
    expect(actions).toHaveLength(3); // two searches, then the answer
  });
});
