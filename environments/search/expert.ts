import { renderHits } from "./observation.js";
import type { Retriever } from "./retriever.js";
import type { SearchTask } from "./task.js";

/** Words of a passage's opening added to its title when the title alone does not bring it up. */
const OPENING_WORDS = 12;

/** Supporting titles in order, each once. */
export const supportingTitles = (task: SearchTask) => [...new Set(task.supporting)];

/** How the expert sees the tool: the supporting titles a query would show whole, as the tool would. */
export type SearchProbe = {
  /** Titles whose whole passage `query`'s observation shows. */
  shows(query: string): Promise<Set<string>>;
  /** The text of the passage titled `title`, when a search for it reaches it at all. */
  text(title: string): Promise<string | undefined>;
};

export function retrieverProbe(retriever: Retriever, topK: number, maxChars: number): SearchProbe {
  return {
    async shows(query) {
      const r = await retriever.search(query, topK);
      if (!r.ok) return new Set();
      const { whole } = renderHits(query, r.value, maxChars);
      return new Set(r.value.filter((_, i) => whole[i]).map((h) => h.title));
    },
    async text(title) {
      const r = await retriever.search(title, 50);
      return r.ok ? r.value.find((h) => h.title === title)?.text : undefined;
    },
  };
}

/**
 * The expert's next search: a query that shows a supporting passage not yet seen in full. For each such
 * title in order it tries the title, then the title with the question, then the title with the
 * passage's opening words, and takes the first that the tool would show whole. A query that would not
 * show it is never sent, so the expert never repeats a search (MuSiQue's "Oklahoma", "Iowa" and
 * "Kansas" passages are outranked by others naming them, and the title alone found them at no step).
 * `undefined`: no query reaches any missing passage.
 */
export async function nextExpertQuery(
  task: SearchTask,
  seen: readonly string[],
  probe: SearchProbe,
): Promise<string | undefined> {
  for (const title of supportingTitles(task).filter((t) => !seen.includes(t))) {
    const candidates = [title, `${title} ${task.question}`];
    for (const query of candidates) if ((await probe.shows(query)).has(title)) return query;
    const text = await probe.text(title);
    if (text === undefined) continue;
    const query = `${title} ${text.split(/\s+/).slice(0, OPENING_WORDS).join(" ")}`;
    if ((await probe.shows(query)).has(title)) return query;
  }
  return undefined;
}
