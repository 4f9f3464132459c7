import { EdgegymError } from "../../shared/errors.js";
import { envSql } from "../data/sql.js";
import type { EnvRuntime } from "../kit/types.js";
import { ensureCorpus, ftsRetriever, TITLE_WEIGHT } from "./fts-store.js";
import { memoryRetriever } from "./memory-retriever.js";
import type { Retriever } from "./retriever.js";
import type { SearchSource } from "./sources.js";

const NO_DB = {};
const cache = new WeakMap<object, Map<string, Promise<Retriever>>>();

async function build(source: SearchSource, split: string, runtime: EnvRuntime): Promise<Retriever> {
  const spec = await source.corpus(split, runtime);
  const db = envSql(runtime);
  if (db !== undefined) {
    const corpus = await ensureCorpus(db, spec.name, spec.hash, spec.passages);
    if (!corpus.ok) throw new EdgegymError("internal", corpus.error);
    return ftsRetriever(db, corpus.value);
  }
  if (source.inMemory) return memoryRetriever(await spec.passages(), TITLE_WEIGHT);
  throw new EdgegymError("not_configured", "this environment needs a database binding (DB or EDGEGYM_DB)");
}

/**
 * The retriever over `split`'s corpus on this host: FTS5 in the database (loading the corpus on first
 * use), or in memory for built-in corpora when there is no database. Built once per database and
 * corpus; a failed build is forgotten so the next call retries.
 */
export function corpusRetriever(
  source: SearchSource,
  split: string,
  runtime: EnvRuntime,
): Promise<Retriever> {
  const key = (envSql(runtime) as object | undefined) ?? NO_DB;
  let byName = cache.get(key);
  if (!byName) {
    byName = new Map();
    cache.set(key, byName);
  }
  const name = `${source.key}|${split}`;
  let r = byName.get(name);
  if (!r) {
    r = build(source, split, runtime);
    byName.set(name, r);
    r.catch(() => byName.delete(name));
  }
  return r;
}
