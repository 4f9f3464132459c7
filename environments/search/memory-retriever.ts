import { bm25Index } from "../kit/bm25.js";
import { queryTerms } from "./fts-query.js";
import type { Retriever, SearchHit } from "./retriever.js";
import type { Passage } from "./task.js";

/**
 * The corpus in memory, for hosts with no database (in-process use of the built-in world): FTS5's
 * BM25 over title and text, a title token counting `titleWeight` times (`kit/bm25.ts`).
 */
export function memoryRetriever(passages: readonly Passage[], titleWeight: number): Retriever {
  const index = bm25Index(
    passages.map((p) => [
      { text: p.title, weight: titleWeight },
      { text: p.text, weight: 1 },
    ]),
  );
  return {
    async search(query, k) {
      const hits = index
        .rank(queryTerms(query), k)
        .map(({ doc, score }): SearchHit => ({ ...(passages[doc] as Passage), score }));
      return { ok: true, value: hits };
    },
  };
}
