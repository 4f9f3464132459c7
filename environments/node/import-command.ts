import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "../../shared/result.js";
import { builtinImporters } from "../builtin.js";
import { renderSqlScript } from "../data/d1-sql.js";
import { datasetHash, datasetWrites, saveDataset } from "../data/datasets.js";
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

export type ImportReport = { dataset: string; counts: Record<string, number>; target: string; hash?: string };

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SPLIT_NAMES = ["train", "test", "dev", "validation"] as const;

/** The split a file name announces (`train.jsonl`, `gsm8k-test.jsonl`, `hotpot_dev.json`), if any. */
export function inferSplit(name: string): string | undefined {
  const words = basename(name)
    .toLowerCase()
    .split(/[^a-z]+/);
  return SPLIT_NAMES.find((s) => words.includes(s));
}

async function readSource(cmd: ImportCommand): Promise<Result<{ text: string; source: string }>> {
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
  try {
    return { ok: true, value: { text: await readFile(cmd.path, "utf8"), source: cmd.path } };
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
  const split = cmd.split ?? inferSplit(cmd.path ?? new URL(cmd.url ?? "", "file:///").pathname);
  const parsed = await importer(src.value.text, { source: src.value.source, ...(split ? { split } : {}) });
  if (!parsed.ok) return { ok: false, error: `${src.value.source}: ${parsed.error}` };

  const db = await openLocalDb(cmd.d1 === undefined ? cmd.db : ":memory:");
  try {
    if (cmd.d1 !== undefined) {
      const { statements, counts } = await datasetWrites(db, parsed.value);
      const written = await writeD1(statements, cmd);
      if (!written.ok) return written;
      return { ok: true, value: { dataset: parsed.value.name, counts, target: `d1 (${cmd.d1})` } };
    }
    const saved = await saveDataset(db, parsed.value);
    if (!saved.ok) return saved;
    const hash = await datasetHash(db, parsed.value.name);
    return {
      ok: true,
      value: { dataset: saved.value.name, counts: saved.value.counts, target: cmd.db, hash },
    };
  } finally {
    db.close();
  }
}
