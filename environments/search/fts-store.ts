import { sql } from "drizzle-orm";
import type { Result } from "../../shared/result.js";
import type { SqlDb } from "../data/sql.js";
import { matchTerms, queryTerms } from "./fts-query.js";
import type { Retriever, SearchHit } from "./retriever.js";
import type { Passage } from "./task.js";

/** Rowids of corpus `id` are `id * 2^32 + i`: one range per corpus, exact in a double up to id 2^20. */
const SPAN = 2 ** 32;
/** D1 binds at most 100 parameters per statement: 33 rows of (rowid, title, body). */
const ROWS_PER_INSERT = 33;
/** Characters per INSERT, well under D1's 100 KB statement limit. */
const CHARS_PER_INSERT = 60_000;
/** INSERT statements per batch: a few MB of SQL per round trip. */
const INSERTS_PER_BATCH = 50;
/** Column weights for bm25(): a term in the title counts twice, so naming an entity finds its article. */
export const TITLE_WEIGHT = 2;

export type CorpusRef = { id: number; passages: number };

type CorpusRow = { id: number; hash: string; passages: number | null };

async function corpusRow(db: SqlDb, name: string): Promise<CorpusRow | undefined> {
  const [row] = await db.all<CorpusRow>(
    sql`SELECT id, hash, passages FROM search_corpora WHERE name = ${name}`,
  );
  return row;
}

/** Groups of passages that each fit one INSERT statement. */
function insertGroups(passages: readonly Passage[]): { start: number; rows: Passage[] }[] {
  const groups: { start: number; rows: Passage[] }[] = [];
  let size = 0;
  passages.forEach((p, i) => {
    const chars = p.title.length + p.text.length;
    const last = groups.at(-1);
    if (!last || last.rows.length >= ROWS_PER_INSERT || size + chars > CHARS_PER_INSERT) {
      groups.push({ start: i, rows: [p] });
      size = chars;
    } else {
      last.rows.push(p);
      size += chars;
    }
  });
  return groups;
}

async function load(db: SqlDb, row: CorpusRow, hash: string, passages: readonly Passage[]) {
  const base = row.id * SPAN;
  if (row.hash !== hash || row.passages !== null) {
    await db.run(sql`UPDATE search_corpora SET hash = ${hash}, passages = NULL WHERE id = ${row.id}`);
    await db.run(sql`DELETE FROM search_passages WHERE rowid BETWEEN ${base} AND ${base + SPAN - 1}`);
  }
  const inserts = insertGroups(passages).map((g) => {
    const values = g.rows.map((p, j) => sql`(${base + g.start + j}, ${p.title}, ${p.text})`);
    // REPLACE keeps a load that runs twice at once (two isolates, two requests) idempotent: same rowids, same rows.
    return sql`INSERT OR REPLACE INTO search_passages (rowid, title, body) VALUES ${sql.join(values, sql`, `)}`;
  });
  for (let i = 0; i < inserts.length; i += INSERTS_PER_BATCH) {
    await db.batch(inserts.slice(i, i + INSERTS_PER_BATCH));
  }
  await db.run(
    sql`UPDATE search_corpora SET passages = ${passages.length} WHERE id = ${row.id} AND hash = ${hash}`,
  );
}

/**
 * Makes sure corpus `name` holds exactly the passages identified by `hash`, loading them (from
 * `passages()`, called only when needed) in statement-sized batches. Idempotent: a finished corpus
 * with the same hash is left alone; a different hash replaces it.
 */
export async function ensureCorpus(
  db: SqlDb,
  name: string,
  hash: string,
  passages: () => Promise<readonly Passage[]> | readonly Passage[],
): Promise<Result<CorpusRef>> {
  let row = await corpusRow(db, name);
  if (row && row.hash === hash && row.passages !== null)
    return { ok: true, value: { id: row.id, passages: row.passages } };
  if (!row) {
    await db.run(
      sql`INSERT INTO search_corpora (name, hash) VALUES (${name}, ${hash}) ON CONFLICT (name) DO NOTHING`,
    );
    row = await corpusRow(db, name);
    if (!row) return { ok: false, error: `corpus "${name}" could not be registered` };
  }
  if (row.id >= 2 ** 20) return { ok: false, error: `corpus id ${row.id} is beyond the rowid range` };
  const items = await passages();
  await load(db, row, hash, items);
  return { ok: true, value: { id: row.id, passages: items.length } };
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
  const lo = corpus.id * SPAN;
  const hi = lo + SPAN - 1;
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
