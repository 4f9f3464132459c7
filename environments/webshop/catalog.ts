import { and, asc, eq, inArray } from "drizzle-orm";
import { sha256Hex } from "../../shared/content-hash.js";
import { datasetSplits, datasetTasks } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { hashString, rng } from "../../shared/random.js";
import { countTasks, getTask, saveDataset } from "../data/datasets.js";
import { type EnvDb, envDb } from "../data/db.js";
import { envSql } from "../data/sql.js";
import { ownValue } from "../kit/tools.js";
import type { EnvRuntime, TaskSource } from "../kit/types.js";
import { type CatalogStore, catalogStore, ensureCatalog } from "./catalog-store.js";
import {
  builtinCatalog,
  builtinGoal,
  builtinSplits,
  GENERATOR_VERSION,
  WEBSHOP_LEVEL_CATALOG,
  WEBSHOP_LEVELS,
} from "./generator.js";
import { Annotation, type Goal, HumanInstruction, humanGoal, syntheticGoals, type Wording } from "./goal.js";
import { memoryStore } from "./memory-store.js";
import { Product } from "./product.js";

/** Where an environment's products and goals come from. */
export type WebshopSource = {
  tasks: TaskSource<Goal>;
  /** How the instructions name their product; imported goals are WebShop's own, worded as `query`. */
  wording: Wording;
  /** Search and lookup over the catalog, loaded into the database on first use. */
  store(runtime: EnvRuntime): Promise<CatalogStore>;
};

/**
 * The dataset `npm run data -- import webshop|webshop-goals|webshop-human-goals` writes: splits
 * `products`, `annotations` and `human`.
 */
export const IMPORTED_DATASET = "webshop";
/** Goals made from the imported data, splits `train` and `test`, one dataset per goal kind. */
const GOALS_DATASET: Record<GoalKind, string> = { synthetic: "webshop-goals", human: "webshop-goals-human" };
const PRODUCTS_HINT = "npm run data -- import webshop ../shared/data/webshop/documents_100.jsonl";
export const IMPORT_HINT: Record<GoalKind, string> = {
  synthetic: `${PRODUCTS_HINT} && npm run data -- import webshop-goals ../shared/data/webshop/items_ins_v2_1000.json`,
  human: `${PRODUCTS_HINT} && npm run data -- import webshop-goals ../shared/data/webshop/items_ins_v2_1000.json && npm run data -- import webshop-human-goals path/to/items_human_ins.json`,
};

/**
 * One promise per database; a failure or an `undefined` result (nothing imported yet) is forgotten so
 * the next call looks again. A re-import is picked up by the next process (or isolate).
 */
function memo<T>(make: (runtime: EnvRuntime) => Promise<T>) {
  const cache = new WeakMap<object, Promise<T>>();
  return (runtime: EnvRuntime): Promise<T> => {
    const key = envDb(runtime) ?? runtime.bindings;
    let p = cache.get(key);
    if (!p) {
      const made = make(runtime);
      cache.set(key, made);
      made.then(
        (v) => v === undefined && cache.delete(key),
        () => cache.delete(key),
      );
      p = made;
    }
    return p;
  };
}

/** A store whose searches return only their best `results` products (all when undefined). */
function fewerResults(store: CatalogStore, results: number | undefined): CatalogStore {
  if (results === undefined) return store;
  return {
    search: async (query) => {
      const r = await store.search(query);
      return r.ok ? { ok: true, value: r.value.slice(0, results) } : r;
    },
    products: (indexes) => store.products(indexes),
  };
}

/**
 * The built-in catalog of `size` generated products and its seeded synthetic goals, searched in memory
 * on every host. A host's database is not used for it: FTS5 stems words and takes its BM25 statistics
 * over every catalog in its table, so the same search ranked differently on a host that had imported
 * other catalogs, and an episode's pages depended on which server played it (webshop-l1 1.7.0: 253 of
 * 1,000 test tasks opened on a different results page with `.edgegym/data.db` present than without).
 * `wording` says how the goals' instructions name their product (`Wording`); `results` caps the
 * results a search returns (the level's by default, all 50 at the top).
 */
export function builtinSource(
  size: number,
  level: number = WEBSHOP_LEVELS,
  wording: Wording = "query",
  results = level >= WEBSHOP_LEVELS ? undefined : WEBSHOP_LEVEL_CATALOG[level]?.results,
): WebshopSource {
  // Below the top level a product keeps one option and is named by a word; the level names the catalog
  // and the task source.
  const top = level >= WEBSHOP_LEVELS;
  const maxOptions = top ? undefined : WEBSHOP_LEVEL_CATALOG[level]?.maxOptions;
  const suffix = top ? "" : `/l${level}/word-ids`;
  const catalog = () => builtinCatalog(size, 0, maxOptions, top ? "asin" : "word");
  const splits = builtinSplits(level);
  let store: CatalogStore | undefined;
  return {
    tasks: {
      // Below the top, 1.2.0 took validation's tenth of the products out of train and 1.3.0 named the
      // products by words: new goals, a new id; so does naming the product's type.
      id: `${GENERATOR_VERSION}/${size}${suffix}${top ? "" : "/with-validation"}${wording === "type" ? "/typed" : ""}`,
      splits: Object.keys(splits),
      count: (split) => ownValue(splits, split) ?? 0,
      get: (split, index) => builtinGoal(catalog(), split, index, level, wording),
    },
    wording,
    store: async () => {
      store ??= fewerResults(memoryStore(catalog()), results);
      return store;
    },
  };
}

/** Share of the shuffled goals held out as `test`, at least one. */
const TEST_SHARE = 0.1;

async function payloads(db: EnvDb, split: string): Promise<unknown[]> {
  const rows = await db
    .select({ payload: datasetTasks.payload })
    .from(datasetTasks)
    .where(and(eq(datasetTasks.dataset, IMPORTED_DATASET), eq(datasetTasks.split, split)))
    .orderBy(asc(datasetTasks.idx));
  return rows.map((r) => r.payload);
}

/** Which goals `webshop-real` makes: WebShop's synthetic ones (`items_ins_v2`) or its human ones. */
export type GoalKind = "synthetic" | "human";

const GOAL_SPLITS: Record<GoalKind, readonly string[]> = {
  synthetic: ["annotations", "products"],
  human: ["annotations", "human", "products"],
};

function goalsOf(
  kind: GoalKind,
  products: readonly Product[],
  annotations: Map<string, Annotation>,
  human: unknown[],
) {
  if (kind === "synthetic") {
    return products.flatMap((p) => {
      const note = annotations.get(p.asin);
      return note ? syntheticGoals(p, note, rng(hashString(`goal/${p.asin}`))) : [];
    });
  }
  const byAsin = new Map(products.map((p) => [p.asin, p]));
  return human.flatMap((h, i) => {
    const parsed = HumanInstruction.safeParse(h);
    const product = parsed.success ? byAsin.get(parsed.data.asin) : undefined;
    if (!parsed.success || !product) return [];
    const goal = humanGoal(product, parsed.data, rng(hashString(`goal/${product.asin}/${i}`)));
    return goal ? [goal] : [];
  });
}

/**
 * Builds the imported catalog: products with their annotation's attributes (WebShop reads attributes
 * from the annotation file, `DUMMY_ATTR` without one), and the goals (synthetic: of every annotated
 * product; human: of every human instruction naming an attribute), shuffled with a fixed seed and split
 * into test (first tenth) and train, saved as a dataset.
 */
async function materialize(db: EnvDb, kind: GoalKind): Promise<Product[]> {
  const annotations = new Map(
    (await payloads(db, "annotations")).flatMap((a) => {
      const parsed = Annotation.safeParse(a);
      return parsed.success ? [[parsed.data.asin, parsed.data] as const] : [];
    }),
  );
  const products = (await payloads(db, "products")).flatMap((p) => {
    const parsed = Product.safeParse(p);
    if (!parsed.success) return [];
    const note = annotations.get(parsed.data.asin);
    return [note ? { ...parsed.data, attributes: note.attributes } : parsed.data];
  });
  const goals = goalsOf(kind, products, annotations, kind === "human" ? await payloads(db, "human") : []);
  const r = rng(233);
  for (let i = goals.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [goals[i], goals[j]] = [goals[j] as Goal, goals[i] as Goal];
  }
  if (goals.length > 0) {
    const test = Math.max(1, Math.floor(goals.length * TEST_SHARE));
    const saved = await saveDataset(db, {
      name: GOALS_DATASET[kind],
      tasks: goals.map((g, i) => ({ split: i < test ? "test" : "train", payload: g })),
    });
    if (!saved.ok) throw new EdgegymError("internal", saved.error);
  }
  return products;
}

/** Identity of the imported splits a goal kind reads (their hashes), or undefined before they are imported. */
async function importHash(db: EnvDb, kind: GoalKind): Promise<string | undefined> {
  const rows = await db
    .select()
    .from(datasetSplits)
    .where(
      and(eq(datasetSplits.dataset, IMPORTED_DATASET), inArray(datasetSplits.split, [...GOAL_SPLITS[kind]])),
    )
    .orderBy(asc(datasetSplits.split));
  if (!rows.some((r) => r.split === "products")) return undefined;
  if (kind === "human" && !rows.some((r) => r.split === "human")) return undefined;
  return `sha256:${await sha256Hex(rows.map((r) => `${r.split}:${r.count}:${r.hash}`).join("\n"))}`;
}

/** The imported WebShop catalog (`webshop-real`, `webshop-real-human`): prepared (indexed, goals made) on first use. */
export function importedSource(kind: GoalKind = "synthetic"): WebshopSource {
  const prepared = memo(async (runtime) => {
    const db = envDb(runtime);
    const sql = envSql(runtime);
    if (db === undefined || sql === undefined) return undefined;
    const hash = await importHash(db, kind);
    if (hash === undefined) return undefined;
    const ref = await ensureCatalog(sql, `imported-${kind}`, hash, () => materialize(db, kind));
    if (!ref.ok) throw new EdgegymError("internal", ref.error);
    return { hash, db, store: catalogStore(sql, ref.value) };
  });
  const notImported = () =>
    new EdgegymError(
      "dataset_not_imported",
      `the WebShop data has not been imported; run: ${IMPORT_HINT[kind]}`,
    );
  return {
    wording: "query",
    tasks: {
      id: async (runtime) => `webshop-imported-${kind}:${(await prepared(runtime))?.hash ?? "none"}`,
      splits: ["train", "test"],
      count: async (split, runtime) => {
        const p = await prepared(runtime);
        return p === undefined ? 0 : countTasks(p.db, GOALS_DATASET[kind], split);
      },
      get: async (split, index, runtime) => {
        const p = await prepared(runtime);
        const goal =
          p === undefined ? undefined : await getTask<Goal>(p.db, GOALS_DATASET[kind], split, index);
        if (goal === undefined) throw notImported();
        return goal;
      },
    },
    store: async (runtime) => {
      const p = await prepared(runtime);
      if (p === undefined) throw notImported();
      return p.store;
    },
  };
}
