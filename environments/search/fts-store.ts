import { sql } from "drizzle-orm";
import type { Result } from "../../shared/result.js";
import { ensureHashedRows, type HashedTable, rowidRange } from "../data/hashed-rows.js";
import type { SqlDb } from "../data/sql.js";
import { matchTerms, queryTerms } from "./fts-query.js";
import type { Retriever, SearchHit } from "./retriever.js";
import type { Passage } from "./task.js";

/** Column weights for bm25(): a term in the title counts twice, so naming an entity finds its article. */
export const TITLE_WEIGHT = 2;

export type CorpusRef = { id: number; passages: number };

const CORPORA: HashedTable = {
  registry: "search_corpora",
  count: "passages",
  rows: "search_passages",
  columns: ["title", "body"],
  noun: "corpus",
};

/**
 * Makes sure corpus `name` holds exactly the passages identified by `hash`, loading them (from
 * `passages()`, called only when needed) in statement-sized batches (`data/hashed-rows.ts`).
 */
export async function ensureCorpus(
  db: SqlDb,
  name: string,
  hash: string,
  passages: () => Promise<readonly Passage[]> | readonly Passage[],
): Promise<Result<CorpusRef>> {
  const r = await ensureHashedRows(db, CORPORA, name, hash, passages, (p) => [p.title, p.text]);
  return r.ok ? { ok: true, value: { id: r.value.id, passages: r.value.count } } : r;
}

/**
 * Common-term pruning, after Elasticsearch's `cutoff_frequency`: a query word found in more than
 * `max(minDocs, fraction · N)` passages of the corpus is dropped when rarer words remain. FTS5 scores
 * every passage that matches any word, so one such word makes a search scan most of a large corpus,
 * while its IDF, ln((N − n + 0.5)/(n + 0.5)), adds little to the ranking. Corpora of at most `minDocs`
 * passages are never pruned: there the ranking is exactly bm25() over every word.
 */
export type PruneOptions = { fraction: number; minDocs: number };

export const DEFAULT_PRUNE: PruneOptions = { fraction: 0.02, minDocs: 1000 };

/** Most common/rare verdicts a retriever remembers before it starts over. */
const MAX_CACHED_TERMS = 50_000;

/** BM25 over one corpus of the FTS5 table `search_passages`: the same SQL on D1 and on libsql. */
export function ftsRetriever(db: SqlDb, corpus: CorpusRef, prune: PruneOptions = DEFAULT_PRUNE): Retriever {
  const { lo, hi } = rowidRange(corpus.id);
  const cutoff = Math.max(prune.minDocs, Math.floor(prune.fraction * corpus.passages));
  const common = new Map<string, boolean>();

  /** Whether more than `cutoff` passages hold `term`: counts at most cutoff + 1 rows, then remembers. */
  const isCommon = async (term: string): Promise<boolean> => {
    const known = common.get(term);
    if (known !== undefined) return known;
    const [row] = await db.all<{ n: number }>(
      sql`SELECT count(*) AS n FROM (SELECT rowid FROM search_passages
          WHERE search_passages MATCH ${matchTerms([term])} AND rowid BETWEEN ${lo} AND ${hi} LIMIT ${cutoff + 1})`,
    );
    const verdict = (row?.n ?? 0) > cutoff;
    if (common.size >= MAX_CACHED_TERMS) common.clear();
    common.set(term, verdict);
    return verdict;
  };

  const keptTerms = async (terms: string[]): Promise<string[]> => {
    if (corpus.passages <= cutoff || terms.length < 2) return terms;
    const verdicts = await Promise.all(terms.map(isCommon));
    const rare = terms.filter((_, i) => !verdicts[i]);
    return rare.length > 0 ? rare : terms;
  };

  return {
    async search(query, k) {
      try {
        const match = matchTerms(await keptTerms(queryTerms(query)));
        if (match === undefined) return { ok: true, value: [] };
        const rows = await db.all<{ title: string; text: string; score: number }>(
          sql`SELECT title, body AS text, bm25(search_passages, ${TITLE_WEIGHT}, 1.0) AS score
              FROM search_passages
              WHERE search_passages MATCH ${match} AND rowid BETWEEN ${lo} AND ${hi}
              ORDER BY score LIMIT ${k}`,
        );
        return {
          ok: true,
          value: rows.map((r): SearchHit => ({ title: r.title, text: r.text, score: -r.score })),
        };
      } catch (e) {
        return { ok: false, error: `search failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
  };
}
