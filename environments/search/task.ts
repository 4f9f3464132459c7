import { z } from "zod";

/** A passage of the corpus: an article title and its text (HotpotQA's paragraph, joined). */
export const Passage = z.object({ title: z.string(), text: z.string() });
export type Passage = z.infer<typeof Passage>;

/** One multi-hop question, as generated or imported (and stored as a dataset task payload). */
export const SearchTask = z.object({
  /** Upstream id (`_id`, MuSiQue `id`) or the generator's `split/index`. */
  id: z.string(),
  question: z.string(),
  /** The answer first, then its aliases; matching any of them is correct. */
  answers: z.array(z.string()).min(1),
  /** Titles of the supporting passages: what the expert searches, and what the process reward looks for. */
  supporting: z.array(z.string()),
  /** `bridge`, `comparison` (HotpotQA) or MuSiQue's hop count such as `2hop`. */
  type: z.string(),
});
export type SearchTask = z.infer<typeof SearchTask>;

/** A slice of an imported corpus, stored as a task of the hidden `corpus` split. */
export const CorpusChunk = z.object({ passages: z.array(Passage) });
export type CorpusChunk = z.infer<typeof CorpusChunk>;

/** Passages with duplicates (same title and same text) removed, first occurrence kept. */
export function dedupePassages(passages: Iterable<Passage>): Passage[] {
  const seen = new Set<string>();
  const out: Passage[] = [];
  for (const p of passages) {
    const key = `${p.title}\u0000${p.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
