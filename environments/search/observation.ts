import type { SearchHit } from "./retriever.js";

/** `text`, cut to `max` characters with a note saying so when it is longer. */
export function truncateObservation(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[observation truncated: showing ${max} of ${text.length} characters]`;
}

/** Characters of text every lower-ranked passage keeps, so that all of them stay visible. */
export const MIN_PASSAGE_CHARS = 100;

/** Ends a passage that was cut to fit: the usual elision mark, short so that the passages keep the room. */
export const CUT_MARK = " […]";
const NOTE_MAX = CUT_MARK.length;

/** What one search shows: the text, and for each hit whether its whole passage is in that text. */
export type RenderedHits = { text: string; whole: boolean[] };

/**
 * What the model sees for one search: numbered passages, title then text, in at most `max` characters
 * (plus the note). Cutting the joined text at `max` used to drop the lower-ranked passages entirely (a
 * supporting passage at rank 4 or 5 vanished), so instead each passage is given, best first, all the
 * room left after reserving `MIN_PASSAGE_CHARS` of text (and its title) for every passage below it:
 * the best hit is usually whole and every hit keeps its title and opening. `whole[i]` is true when hit
 * `i`'s full text is shown, which is what the process reward and the expert count as seen.
 */
export function renderHits(query: string, hits: readonly SearchHit[], max: number): RenderedHits {
  if (hits.length === 0) return { text: `No passages found for "${query.slice(0, 100)}".`, whole: [] };
  const header = (h: SearchHit, i: number) => `[${i + 1}] ${h.title}\n`;
  // Room a passage needs at least: its title, its text or MIN_PASSAGE_CHARS of it and the note, "\n\n".
  const floor = (h: SearchHit, i: number) =>
    header(h, i).length + Math.min(h.text.length, MIN_PASSAGE_CHARS + NOTE_MAX) + 2;
  const parts: string[] = [];
  const whole: boolean[] = [];
  let left = max;
  hits.forEach((h, i) => {
    const below = hits.slice(i + 1).reduce((sum, g, j) => sum + floor(g, i + 1 + j), 0);
    const room = left - below - header(h, i).length - (i === 0 ? 0 : 2);
    const keep = Math.max(MIN_PASSAGE_CHARS, room - NOTE_MAX);
    let body = h.text;
    if (h.text.length > room && keep < h.text.length) {
      // Cut at a word boundary when one is near, so the last word shown is a whole word.
      const space = h.text.lastIndexOf(" ", keep);
      const end = space > keep * 0.8 ? space : keep;
      body = `${h.text.slice(0, end)}${CUT_MARK}`;
    }
    whole.push(body === h.text);
    const part = `${header(h, i)}${body}`;
    parts.push(part);
    left -= part.length + (i === 0 ? 0 : 2);
  });
  const joined = parts.join("\n\n");
  // Titles alone can exceed `max` (a pathological corpus); then the old cut applies, and only
  // passages that survive it whole count as seen.
  if (joined.length <= max) return { text: joined, whole };
  const text = truncateObservation(joined, max);
  return { text, whole: whole.map((w, i) => w && text.includes(parts[i] as string)) };
}

/** The text of `renderHits`. */
export function formatHits(query: string, hits: readonly SearchHit[], max: number): string {
  return renderHits(query, hits, max).text;
}
