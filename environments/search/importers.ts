import { z } from "zod";
import type { Result } from "../../shared/result.js";
import type { ImportedDataset } from "../data/datasets.js";
import type { ImportOptions } from "../data/importers.js";
import { CORPUS_SPLIT_PREFIX } from "./sources.js";
import { type CorpusChunk, dedupePassages, type Passage, type SearchTask } from "./task.js";

/** A parsed record: its task and its context paragraphs. */
type Parsed = { task: SearchTask; passages: Passage[] };

const HotpotOfficial = z.object({
  _id: z.string(),
  question: z.string(),
  answer: z.string(),
  type: z.string().optional(),
  supporting_facts: z.array(z.tuple([z.string(), z.number()])),
  context: z.array(z.tuple([z.string(), z.array(z.string())])),
});

const HotpotHf = z.object({
  id: z.string().optional(),
  question: z.string(),
  answer: z.string(),
  type: z.string().optional(),
  supporting_facts: z.object({ title: z.array(z.string()), sent_id: z.array(z.number()) }),
  context: z.object({ title: z.array(z.string()), sentences: z.array(z.array(z.string())) }),
});

const Musique = z.object({
  id: z.string(),
  question: z.string(),
  answer: z.string(),
  answer_aliases: z.array(z.string()).default([]),
  answerable: z.boolean().optional(),
  paragraphs: z.array(
    z.object({ title: z.string(), paragraph_text: z.string(), is_supporting: z.boolean() }),
  ),
});

/** HotpotQA sentences keep their leading spaces, so joining them without a separator restores the paragraph. */
const paragraph = (title: string, sentences: readonly string[]): Passage => ({
  title,
  text: sentences.join("").trim(),
});

const fromOfficial = (r: z.infer<typeof HotpotOfficial>): Parsed => ({
  task: {
    id: r._id,
    question: r.question,
    answers: [r.answer],
    supporting: [...new Set(r.supporting_facts.map(([t]) => t))],
    type: r.type ?? "bridge",
  },
  passages: r.context.map(([t, s]) => paragraph(t, s)),
});

const fromHf = (r: z.infer<typeof HotpotHf>, i: number): Parsed => ({
  task: {
    id: r.id ?? `hotpotqa/${i}`,
    question: r.question,
    answers: [r.answer],
    supporting: [...new Set(r.supporting_facts.title)],
    type: r.type ?? "bridge",
  },
  passages: r.context.title.map((t, j) => paragraph(t, r.context.sentences[j] ?? [])),
});

const fromMusique = (r: z.infer<typeof Musique>): Parsed => ({
  task: {
    id: r.id,
    question: r.question,
    answers: [r.answer, ...r.answer_aliases],
    supporting: [...new Set(r.paragraphs.filter((p) => p.is_supporting).map((p) => p.title))],
    type: r.id.split("__")[0] ?? "musique",
  },
  passages: r.paragraphs.map((p) => ({ title: p.title, text: p.paragraph_text })),
});

/** A JSON array, or JSON Lines (the Hugging Face and MuSiQue exports). */
function records(text: string): Result<unknown[]> {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith("[")) {
      const all = JSON.parse(trimmed) as unknown;
      return Array.isArray(all) ? { ok: true, value: all } : { ok: false, error: "expected a JSON array" };
    }
    return { ok: true, value: trimmed.split("\n").flatMap((l) => (l.trim() === "" ? [] : [JSON.parse(l)])) };
  } catch (e) {
    return { ok: false, error: `not JSON or JSON Lines: ${(e as Error).message}` };
  }
}

/** `dev` and `validation` files are evaluation data: they become the `test` split. */
function targetSplit(options: ImportOptions): Result<string> {
  const s = options.split;
  if (s === undefined)
    return { ok: false, error: `cannot tell the split of ${options.source}: pass --split train|test` };
  if (s === "dev" || s === "validation") return { ok: true, value: "test" };
  if (s === "train" || s === "test") return { ok: true, value: s };
  return { ok: false, error: `unknown split "${s}": use train or test (dev/validation import as test)` };
}

/** Corpus chunks of at most this many characters, so each stored row fits one D1 statement. */
const CHUNK_CHARS = 50_000;

function chunk(passages: readonly Passage[]): CorpusChunk[] {
  const out: CorpusChunk[] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const p of passages) {
    const chars = p.title.length + p.text.length + 32;
    if (size + chars > CHUNK_CHARS) {
      out.push({ passages: [] });
      size = 0;
    }
    out.at(-1)?.passages.push(p);
    size += chars;
  }
  return out;
}

function importer<S extends z.ZodType>(
  dataset: string,
  schema: S,
  convert: (r: z.infer<S>, i: number) => Parsed,
  missing: string,
  /** Records to leave out before validation (MuSiQue's unanswerable questions). */
  skip: (raw: unknown) => boolean = () => false,
) {
  return (text: string, options: ImportOptions): Result<ImportedDataset> => {
    const split = targetSplit(options);
    if (!split.ok) return split;
    const all = records(text);
    if (!all.ok) return all;
    const parsed: Parsed[] = [];
    for (const [i, raw] of all.value.entries()) {
      if (skip(raw)) continue;
      const r = schema.safeParse(raw);
      if (!r.success) {
        const issue = r.error.issues[0];
        return {
          ok: false,
          error: `record ${i}: ${issue?.path.join(".") || "record"}: ${issue?.message}. ${missing}`,
        };
      }
      parsed.push(convert(r.data, i));
    }
    if (parsed.length === 0) return { ok: false, error: `${options.source} has no questions` };
    const corpus = chunk(dedupePassages(parsed.flatMap((p) => p.passages)));
    return {
      ok: true,
      value: {
        name: dataset,
        tasks: [
          ...parsed.map((p) => ({ split: split.value, payload: p.task })),
          ...corpus.map((c) => ({ split: `${CORPUS_SPLIT_PREFIX}${split.value}`, payload: c })),
        ],
      },
    };
  };
}

/** HotpotQA's official JSON: `_id`, question, answer, supporting_facts, context `[[title, [sentences]]]`. */
export const importHotpotqa = importer(
  "hotpotqa",
  HotpotOfficial,
  fromOfficial,
  "Expected HotpotQA's official format with answers and context (e.g. hotpot_dev_distractor_v1.json).",
);

/** The Hugging Face layout of HotpotQA: context `{title[], sentences[][]}`, supporting_facts `{title[], sent_id[]}`. */
export const importHotpotqaHf = importer(
  "hotpotqa",
  HotpotHf,
  fromHf,
  "Expected the Hugging Face HotpotQA layout with answers and context.",
);

/** MuSiQue JSON Lines: paragraphs `[{title, paragraph_text, is_supporting}]`, answer, answer_aliases. */
export const importMusique = importer(
  "musique",
  Musique,
  fromMusique,
  "Expected MuSiQue's format (musique_ans_v1.0_*.jsonl).",
  (raw) => (raw as { answerable?: unknown } | null)?.answerable === false,
);
