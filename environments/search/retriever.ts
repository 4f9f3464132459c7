import type { Result } from "../../shared/result.js";
import type { Passage } from "./task.js";

/** A ranked passage; higher `score` is better (FTS5's bm25() is negated so that holds). */
export type SearchHit = Passage & { score: number };

/**
 * What the `search` tool needs from an index. BM25 over FTS5 is the one shipped; a dense retriever
 * (bge embeddings with a vector index, as in Agent-R1) would implement the same method.
 */
export type Retriever = {
  /** The best `k` passages for `query`, best first; an error text when the index can't answer. */
  search(query: string, k: number): Promise<Result<SearchHit[]>>;
};
