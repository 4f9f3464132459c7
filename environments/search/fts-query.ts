/**
 * Safe FTS5 MATCH expressions from arbitrary user text. The text is cut into words (Unicode letters,
 * digits and combining marks); each word becomes a double-quoted FTS5 string, so operators (`AND`,
 * `NEAR(`, `-`, `*`, `^`, `:`) and quotes in the query are never syntax. Words are OR-ed: BM25 ranks
 * documents by the terms they share with the query, as a Lucene/Pyserini BM25 retriever does.
 */

/** Most terms a query keeps: bounds the cost of one search whatever the model writes. */
export const MAX_QUERY_TERMS = 24;

/**
 * English function words dropped from queries (when anything else is left): they match most passages,
 * so they barely change the ranking but make FTS5 score every document.
 */
const STOPWORDS = new Set(
  (
    "a an and are as at be by did do does for from has have he her his how in is it its of on or " +
    "she that the their they this to was were what when where which who whom whose why with"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The query's words, lowercased, de-duplicated, stopwords dropped unless nothing else remains. */
export function queryTerms(text: string): string[] {
  const words = [...new Set((text.toLowerCase().match(WORD) ?? []) as string[])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return (content.length > 0 ? content : words).slice(0, MAX_QUERY_TERMS);
}

/** The MATCH expression OR-ing `terms` (words from `queryTerms`), or `undefined` when there are none. */
export function matchTerms(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

/** The MATCH expression for `text`, or `undefined` when it has no words to search for. */
export function ftsMatchExpression(text: string): string | undefined {
  return matchTerms(queryTerms(text));
}
