import type { SearchHit } from "./retriever.js";

/** `text`, cut to `max` characters with a note saying so when it is longer. */
export function truncateObservation(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[observation truncated: showing ${max} of ${text.length} characters]`;
}

/** What the model sees for one search: numbered passages, title then text. */
export function formatHits(query: string, hits: readonly SearchHit[], max: number): string {
  if (hits.length === 0) return `No passages found for "${query.slice(0, 100)}".`;
  return truncateObservation(hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.text}`).join("\n\n"), max);
}
