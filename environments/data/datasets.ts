import { and, asc, eq, inArray } from "drizzle-orm";
import { canonicalJson, sha256Hex } from "../../shared/content-hash.js";
import { datasetSplits, datasets, datasetTasks } from "../../shared/db/schema.js";
import type { Result } from "../../shared/result.js";
import type { EnvDb } from "./db.js";

/** A dataset as an importer produces it: tasks in order, each tagged with its split. */
export type ImportedDataset = {
  name: string;
  /** Optional identity of the source (e.g. an upstream release); mixed into each split's hash. */
  hash?: string;
  tasks: { split: string; payload: unknown }[];
  /** Records the importer left out, one line each saying why, for the CLI to print. */
  refused?: string[];
};

/** What a save wrote: task count per split and the dataset's identity afterwards. */
export type SavedDataset = { name: string; counts: Record<string, number> };

/** Rows per INSERT: D1 binds at most 100 parameters per statement (4 columns × 25 rows). */
const ROWS_PER_INSERT = 25;
/** Payload characters per INSERT, well under D1's 100 KB statement limit. */
const CHARS_PER_INSERT = 60_000;

type Row = typeof datasetTasks.$inferInsert;

async function splitRows(input: ImportedDataset) {
  const bySplit = new Map<string, Row[]>();
  for (const t of input.tasks) {
    const rows = bySplit.get(t.split) ?? [];
    rows.push({ dataset: input.name, split: t.split, idx: rows.length, payload: t.payload });
    bySplit.set(t.split, rows);
  }
  return Promise.all(
    [...bySplit].map(async ([split, rows]) => {
      const lines = rows.map((r) => canonicalJson(r.payload));
      const hash = await sha256Hex([input.hash ?? "", ...lines].join("\n"));
      return { split, rows, hash, chars: lines.map((l) => l.length) };
    }),
  );
}

/** Consecutive groups of rows that fit one INSERT statement. */
function chunks(rows: Row[], chars: number[]): Row[][] {
  const out: Row[][] = [];
  let current: Row[] = [];
  let size = 0;
  rows.forEach((row, i) => {
    const c = chars[i] ?? 0;
    if (current.length > 0 && (current.length >= ROWS_PER_INSERT || size + c > CHARS_PER_INSERT)) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += c;
  });
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The statements that replace the given splits of a dataset (other splits stay): deletes, chunked
 * inserts, split rows and the dataset row. Run them as one batch, or render them as SQL for wrangler.
 */
export async function datasetWrites(db: EnvDb, input: ImportedDataset, now = Date.now()) {
  const splits = await splitRows(input);
  const names = splits.map((s) => s.split);
  const counts = Object.fromEntries(splits.map((s) => [s.split, s.rows.length]));
  const where = (t: typeof datasetTasks | typeof datasetSplits) =>
    and(eq(t.dataset, input.name), inArray(t.split, names));
  const importHash = await sha256Hex(splits.map((s) => `${s.split}:${s.hash}`).join("\n"));
  const statements = [
    db.delete(datasetTasks).where(where(datasetTasks)),
    db.delete(datasetSplits).where(where(datasetSplits)),
    db.delete(datasets).where(eq(datasets.name, input.name)),
    ...splits.flatMap((s) => chunks(s.rows, s.chars).map((rows) => db.insert(datasetTasks).values(rows))),
    db
      .insert(datasetSplits)
      .values(
        splits.map((s) => ({ dataset: input.name, split: s.split, count: s.rows.length, hash: s.hash })),
      ),
    db.insert(datasets).values({ name: input.name, hash: importHash, importedAt: new Date(now) }),
  ] as const;
  return { statements, counts };
}

/**
 * Saves an imported dataset in one atomic batch: the splits it contains are replaced, the dataset's
 * other splits are kept (so train and test can be imported one file at a time).
 */
export async function saveDataset(db: EnvDb, input: ImportedDataset): Promise<Result<SavedDataset>> {
  if (input.tasks.length === 0) return { ok: false, error: `dataset "${input.name}" has no tasks` };
  const { statements, counts } = await datasetWrites(db, input);
  await db.batch(statements);
  return { ok: true, value: { name: input.name, counts } };
}

/**
 * The dataset's identity, `sha256:<hex>` over every stored split's name, count and content hash; it
 * changes whenever any split's data does. `undefined` when nothing has been imported.
 */
export async function datasetHash(db: EnvDb, name: string): Promise<string | undefined> {
  const rows = await db
    .select()
    .from(datasetSplits)
    .where(eq(datasetSplits.dataset, name))
    .orderBy(asc(datasetSplits.split));
  if (rows.length === 0) return undefined;
  return `sha256:${await sha256Hex(rows.map((r) => `${r.split}:${r.count}:${r.hash}`).join("\n"))}`;
}

/** Number of tasks stored for a split; 0 when it was never imported. */
export async function countTasks(db: EnvDb, name: string, split: string): Promise<number> {
  const [row] = await db
    .select({ count: datasetSplits.count })
    .from(datasetSplits)
    .where(and(eq(datasetSplits.dataset, name), eq(datasetSplits.split, split)));
  return row?.count ?? 0;
}

/** Task `index` of a split as the importer stored it, or `undefined` when there is no such task. */
export async function getTask<T>(
  db: EnvDb,
  name: string,
  split: string,
  index: number,
): Promise<T | undefined> {
  const [row] = await db
    .select({ payload: datasetTasks.payload })
    .from(datasetTasks)
    .where(and(eq(datasetTasks.dataset, name), eq(datasetTasks.split, split), eq(datasetTasks.idx, index)));
  return row === undefined ? undefined : (row.payload as T);
}

/** Every stored split of every dataset, with its task count: what `npm run data -- list` prints. */
export async function listDatasets(db: EnvDb): Promise<{ dataset: string; split: string; count: number }[]> {
  return db
    .select({ dataset: datasetSplits.dataset, split: datasetSplits.split, count: datasetSplits.count })
    .from(datasetSplits)
    .orderBy(asc(datasetSplits.dataset), asc(datasetSplits.split));
}
