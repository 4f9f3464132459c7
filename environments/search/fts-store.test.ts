import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { envSql, type SqlDb } from "../data/sql.js";
import { ensureCorpus, ftsRetriever, TITLE_WEIGHT } from "./fts-store.js";
import { memoryRetriever } from "./memory-retriever.js";
import { splitWorld } from "./questions.js";
import type { Passage } from "./task.js";

const opened: LocalDb[] = [];
let db: SqlDb;

/** A fresh in-memory database: FTS5 keeps BM25 statistics (N, avgdl) per table, across corpora. */
async function freshDb(): Promise<SqlDb> {
  const local = await openLocalDb(":memory:");
  opened.push(local);
  const raw = envSql({ bindings: { EDGEGYM_DB: local } });
  if (!raw) throw new Error("libsql drizzle database has no all/run");
  return raw;
}

beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => {
  for (const d of opened) d.close();
});

const numbered = (n: number, tag: string): Passage[] =>
  Array.from({ length: n }, (_, i) => ({ title: `${tag} ${i}`, text: `passage number ${i} of ${tag}` }));

async function rowsIn(corpusId: number): Promise<number> {
  const lo = corpusId * 2 ** 32;
  const [row] = await db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM search_passages WHERE rowid BETWEEN ${lo} AND ${lo + 2 ** 32 - 1}`,
  );
  return row?.n ?? -1;
}

describe("ensureCorpus", () => {
  it("loads in statement-sized batches, once: 100 passages = 4 INSERTs of ≤ 33 rows", async () => {
    const loader = vi.fn(() => numbered(100, "alpha"));
    const first = await ensureCorpus(db, "alpha", "h1", loader);
    if (!first.ok) throw new Error(first.error);
    expect(first.value.passages).toBe(100);
    expect(await rowsIn(first.value.id)).toBe(100);
    const again = await ensureCorpus(db, "alpha", "h1", loader);
    expect(again).toEqual(first);
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it("is idempotent when two loads race (same rowids, REPLACE)", async () => {
    const [a, b] = await Promise.all([
      ensureCorpus(db, "race", "h", () => numbered(70, "race")),
      ensureCorpus(db, "race", "h", () => numbered(70, "race")),
    ]);
    if (!a.ok || !b.ok) throw new Error("load failed");
    expect(a.value.id).toBe(b.value.id);
    expect(await rowsIn(a.value.id)).toBe(70);
  });

  it("replaces the passages when the hash changes", async () => {
    const r = await ensureCorpus(db, "alpha", "h2", () => numbered(10, "beta"));
    if (!r.ok) throw new Error(r.error);
    expect(await rowsIn(r.value.id)).toBe(10);
    const hits = await ftsRetriever(db, r.value).search("alpha", 5);
    expect(hits).toEqual({ ok: true, value: [] });
  });

  it("keeps corpora apart: a search sees only its own corpus", async () => {
    const gamma = await ensureCorpus(db, "gamma", "h", () => [{ title: "Shared word", text: "gamma only" }]);
    const delta = await ensureCorpus(db, "delta", "h", () => [{ title: "Shared word", text: "delta only" }]);
    if (!gamma.ok || !delta.ok) throw new Error("load failed");
    const g = await ftsRetriever(db, gamma.value).search("shared", 5);
    expect(g.ok && g.value.map((h) => h.text)).toEqual(["gamma only"]);
  });
});

describe("FTS5 BM25 retrieval", () => {
  const fruit: Passage[] = [
    { title: "Apple", text: "apple pie" },
    { title: "Pear", text: "pear tart" },
    { title: "Plum", text: "plum jam" },
  ];

  it("scores with bm25(): 'apple' over 3 docs = 0.8027", async () => {
    const db = await freshDb();
    const r = await ensureCorpus(db, "fruit", "h", () => fruit);
    if (!r.ok) throw new Error(r.error);
    const hits = await ftsRetriever(db, r.value).search("Apple?", 5);
    if (!hits.ok) throw new Error(hits.error);
    // N = 3, n = 1: IDF = ln((3 − 1 + 0.5)/(1 + 0.5)) = ln(5/3) = 0.510826
    // f = 2 (title weight) · 1 + 1 (body) = 3; |D| = 1 + 2 = 3 = avgdl, so k1·(1 − b + b) = 1.2
    // score = 0.510826 · 3 · 2.2 / (3 + 1.2) = 0.802726
    expect(hits.value).toHaveLength(1);
    expect(hits.value[0]?.title).toBe("Apple");
    expect(hits.value[0]?.score).toBeCloseTo((Math.log(5 / 3) * 3 * 2.2) / 4.2, 5);
    expect(hits.value[0]?.score).toBeCloseTo(0.802726, 5);
  });

  it("ranks like the in-memory BM25 over the built-in world", async () => {
    const { passages } = splitWorld("train");
    const db = await freshDb();
    const r = await ensureCorpus(db, "world-train", "h", () => passages);
    if (!r.ok) throw new Error(r.error);
    const fts = ftsRetriever(db, r.value);
    const mem = memoryRetriever(passages, TITLE_WEIGHT);
    for (const p of passages.filter((_, i) => i % 40 === 0)) {
      const [a, b] = await Promise.all([fts.search(p.title, 5), mem.search(p.title, 5)]);
      if (!a.ok || !b.ok) throw new Error("search failed");
      expect(a.value[0]?.title).toBe(p.title);
      expect(a.value.map((h) => h.score)).toEqual(b.value.map((h) => expect.closeTo(h.score, 6)));
    }
  });

  it("never fails on hostile queries (fast-check): quotes, operators, NEAR(, -, *, empty, any Unicode", async () => {
    const r = await ensureCorpus(db, "fruit", "h", () => fruit);
    if (!r.ok) throw new Error(r.error);
    const retriever = ftsRetriever(db, r.value);
    const hostile = fc.constantFrom(
      '"',
      "*",
      "NEAR(",
      "NEAR(a b, 2)",
      "-",
      "",
      "AND",
      "OR",
      "NOT",
      "^",
      ":",
      "(",
      ")",
      "{apple}",
      "title:",
      '""',
      "'",
      "\u0000",
      "apple*",
      "-pear",
      "a + b",
    );
    const piece = fc.oneof(
      hostile,
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme" }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 8 }),
        fc.constantFrom(" ", "", "\n"),
        async (parts, sep) => {
          const res = await retriever.search(parts.join(sep), 5);
          expect(res.ok).toBe(true);
          if (res.ok) expect(res.value.length).toBeLessThanOrEqual(5);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("drops words found in more than max(minDocs, fraction·N) passages when rarer words remain", async () => {
    const db = await freshDb();
    // 1,200 passages: every one says "common"; passages 0..2 also say "rare".
    const passages = Array.from({ length: 1200 }, (_, i) => ({
      title: `P${i}`,
      text: i < 3 ? "common rare" : `common filler ${i}`,
    }));
    const r = await ensureCorpus(db, "prune", "h", () => passages);
    if (!r.ok) throw new Error(r.error);
    const titles = async (q: string, prune?: { fraction: number; minDocs: number }) => {
      const hits = await ftsRetriever(db, r.value, prune).search(q, 5);
      if (!hits.ok) throw new Error(hits.error);
      return hits.value.map((h) => h.title);
    };
    // Default cutoff max(1000, 0.02·1200 = 24) = 1000 < 1200 passages with "common": only "rare" is searched.
    expect(await titles("common rare")).toEqual(["P0", "P1", "P2"]);
    // No pruning (cutoff 10,000 ≥ N): "common" matches every passage, so 5 results.
    expect(await titles("common rare", { fraction: 0, minDocs: 10_000 })).toHaveLength(5);
    // Only common words: nothing is dropped.
    expect(await titles("common")).toHaveLength(5);
  });

  it("searches accented text with or without the accents (unicode61 remove_diacritics 2)", async () => {
    const r = await ensureCorpus(db, "accents", "h", () => [
      { title: "Café Zürich", text: "A café in São Paulo." },
      { title: "Other", text: "nothing" },
    ]);
    if (!r.ok) throw new Error(r.error);
    const retriever = ftsRetriever(db, r.value);
    for (const q of ["cafe zurich", "Café", "SAO PAULO"]) {
      const hits = await retriever.search(q, 5);
      expect(hits.ok && hits.value[0]?.title).toBe("Café Zürich");
    }
  });
});
