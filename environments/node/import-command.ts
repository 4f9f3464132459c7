import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "../../shared/result.js";
import { builtinImporters } from "../builtin.js";
import { renderSqlScript } from "../data/d1-sql.js";
import { datasetHash, datasetWrites, saveDataset } from "../data/datasets.js";
import type { ImportOptions } from "../data/importers.js";
import { openLocalDb } from "../data/local-db.js";

export type ImportCommand = {
  kind: string;
  /** A local file; or give `url`. */
  path?: string;
  /** Downloaded with fetch, for users with internet. */
  url?: string;
  /** Overrides the split inferred from the file name. */
  split?: string;
  /** Local SQLite file (Node hosts). */
  db: string;
  /** Write to the worker's D1 through wrangler instead of the local file. */
  d1?: "local" | "remote";
  /** Local D1 state directory (wrangler `--persist-to`); wrangler's default when absent. */
  persistTo?: string;
};

export type ImportReport = {
  dataset: string;
  counts: Record<string, number>;
  target: string;
  hash?: string;
  /** Records the importer left out, one line each. */
  refused?: string[];
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SPLIT_NAMES = ["train", "test", "dev", "validation"] as const;

/** The split a file name announces (`train.jsonl`, `gsm8k-test.jsonl`, `hotpot_dev.json`), if any. */
export function inferSplit(name: string): string | undefined {
  const words = basename(name)
    .toLowerCase()
    .split(/[^a-z]+/);
  return SPLIT_NAMES.find((s) => words.includes(s));
}

type Source = { text: string; source: string; folder?: ImportOptions["folder"] };

async function readSource(cmd: ImportCommand): Promise<Result<Source>> {
  if (cmd.url !== undefined) {
    try {
      const res = await fetch(cmd.url);
      if (!res.ok) return { ok: false, error: `GET ${cmd.url} answered ${res.status}` };
      return { ok: true, value: { text: await res.text(), source: cmd.url } };
    } catch (e) {
      return { ok: false, error: `GET ${cmd.url} failed: ${(e as Error).message}` };
    }
  }
  if (cmd.path === undefined) return { ok: false, error: "give a file path or --url" };
  const path = cmd.path;
  try {
    if ((await stat(path)).isDirectory()) {
      // Files are read as the importer asks for them: a folder of games may hold far more than it reads.
      const files = await readdir(path, { recursive: true });
      const read = (file: string) => readFile(join(path, file), "utf8");
      return { ok: true, value: { text: "", source: path, folder: { files, read } } };
    }
    return { ok: true, value: { text: await readFile(path, "utf8"), source: path } };
  } catch (e) {
    return { ok: false, error: `cannot read ${cmd.path}: ${(e as NodeJS.ErrnoException).code ?? "error"}` };
  }
}

function wrangler(args: string[]): Result<string> {
  const bin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: ROOT, encoding: "utf8" });
  if (run.status === 0) return { ok: true, value: run.stdout };
  return { ok: false, error: `wrangler ${args.slice(0, 3).join(" ")} failed:\n${run.stderr || run.stdout}` };
}

/** Writes the dataset into D1 with `wrangler d1 execute`, after applying migrations to a local D1. */
async function writeD1(statements: Parameters<typeof renderSqlScript>[0], cmd: ImportCommand) {
  const script = renderSqlScript(statements);
  if (!script.ok) return script;
  const dir = await mkdtemp(join(tmpdir(), "edgegym-d1-"));
  try {
    const file = join(dir, "import.sql");
    await writeFile(file, script.value);
    const where = cmd.d1 === "remote" ? ["--remote"] : ["--local"];
    if (cmd.persistTo !== undefined) where.push("--persist-to", cmd.persistTo);
    if (cmd.d1 === "local") {
      const migrated = wrangler(["d1", "migrations", "apply", "edgegym", ...where]);
      if (!migrated.ok) return migrated;
    }
    return wrangler(["d1", "execute", "edgegym", ...where, "--file", file, "--yes"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `npm run data -- import <kind> <path>`: read, parse with the kind's importer, store. */
export async function runImport(cmd: ImportCommand): Promise<Result<ImportReport>> {
  // An own property only: "constructor" or "__proto__" must not find Object.prototype's members.
  const importer = Object.hasOwn(builtinImporters, cmd.kind) ? builtinImporters[cmd.kind] : undefined;
  if (importer === undefined) {
    return {
      ok: false,
      error: `unknown dataset kind "${cmd.kind}"; known: ${Object.keys(builtinImporters).join(", ")}`,
    };
  }
  const src = await readSource(cmd);
  if (!src.ok) return src;
  if (src.value.folder !== undefined && importer.readsFolder !== true) {
    return { ok: false, error: `${src.value.source} is a folder; ${cmd.kind} imports a file` };
  }
  // A folder's importer finds each record's split inside it; only --split overrides that.
  const named = src.value.folder
    ? undefined
    : inferSplit(cmd.path ?? new URL(cmd.url ?? "", "file:///").pathname);
  const split = cmd.split ?? named;
  const { folder } = src.value;
  const parsed = await importer(src.value.text, {
    source: src.value.source,
    ...(split ? { split } : {}),
    ...(folder ? { folder } : {}),
  });
  if (!parsed.ok) return { ok: false, error: `${src.value.source}: ${parsed.error}` };

  const refused = parsed.value.refused?.length ? { refused: parsed.value.refused } : {};
  const db = await openLocalDb(cmd.d1 === undefined ? cmd.db : ":memory:");
  try {
    if (cmd.d1 !== undefined) {
      const { statements, counts } = await datasetWrites(db, parsed.value);
      const written = await writeD1(statements, cmd);
      if (!written.ok) return written;
      return {
        ok: true,
        value: { dataset: parsed.value.name, counts, target: `d1 (${cmd.d1})`, ...refused },
      };
    }
    const saved = await saveDataset(db, parsed.value);
    if (!saved.ok) return saved;
    const hash = await datasetHash(db, parsed.value.name);
    return {
      ok: true,
      value: { dataset: saved.value.name, counts: saved.value.counts, target: cmd.db, hash, ...refused },
    };
  } finally {
    db.close();
  }
}
