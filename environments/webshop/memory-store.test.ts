import { describe, expect, it } from "vitest";
import { openLocalDb } from "../data/local-db.js";
import { envSql } from "../data/sql.js";
import { generateSecrets } from "../kit/index.js";
import { catalogStore, ensureCatalog } from "./catalog-store.js";
import { builtinCatalog } from "./generator.js";
import { createWebshop } from "./index.js";
import { memoryStore } from "./memory-store.js";
import type { Product } from "./product.js";

/** Words chosen so that Porter stemming maps no two of them together: FTS5 and memory must rank alike. */
const WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "jade"];
const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
  asin: `B0MEM${String(i).padStart(5, "0")}`,
  title: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} lamp`,
  category: "home",
  query: "lamp",
  productCategory: "Home › Lamps",
  description: Array.from({ length: 1 + (i % 4) }, (_, k) => WORDS[(i + k * 7) % 10]).join(" "),
  bullets: [WORDS[(i * 7) % 10] ?? ""],
  pricing: [10],
  price: 10,
  options: {},
  attributes: [],
  reviews: [],
  rating: "N.A.",
}));

describe("the in-memory catalog (hosts without a database)", () => {
  it("ranks exactly as FTS5's bm25() does when stemming changes nothing", async () => {
    const db = envSql({ bindings: { EDGEGYM_DB: await openLocalDb(":memory:") } });
    if (!db) throw new Error("libsql drizzle database has no all/run/batch");
    const ref = await ensureCatalog(db, "memory-check", "h", () => products);
    if (!ref.ok) throw new Error(ref.error);
    const fts = catalogStore(db, ref.value, { searchCache: 0 });
    const memory = memoryStore(products);
    for (const q of [
      "amber",
      "cobalt lamp",
      "dune ember fjord",
      "jade harbor indigo garnet",
      "lamp",
      "zzz",
      "",
    ]) {
      expect(await memory.search(q), q).toEqual(await fts.search(q));
    }
  });

  it("lets an in-process host with no database serve webshop: the expert still buys", async () => {
    const env = createWebshop({ catalogSize: 300 });
    const runtime = { bindings: await generateSecrets() };
    let { session } = await env.startSession({ split: "train", index: 1 }, runtime);
    let reward = 0;
    for (let i = 0; i < 15; i++) {
      const { action } = await env.expert(session, runtime);
      const r = await env.step({ session, action }, runtime);
      session = r.session;
      reward = r.reward;
      if (r.done) break;
    }
    expect(reward).toBe(1);
  });

  it("serves a built-in catalog the same on every host: a database, and the catalogs it holds, change no page", async () => {
    // A host whose database holds another catalog in its FTS5 table, as `.edgegym/data.db` does after
    // `npm run envs` has served webshop: FTS5 stems and takes its BM25 statistics over the whole table,
    // so before 1.8.0 level 1 opened 253 of 1,000 test tasks on a different results page there.
    const db = await openLocalDb(":memory:");
    const sql = envSql({ bindings: { EDGEGYM_DB: db } });
    if (!sql) throw new Error("libsql drizzle database has no all/run/batch");
    const other = await ensureCatalog(sql, "builtin-1000", "another catalog", () => builtinCatalog(1000));
    if (!other.ok) throw new Error(other.error);
    const secrets = await generateSecrets();
    const withDb = { bindings: { ...secrets, EDGEGYM_DB: db } };
    const without = { bindings: secrets };
    const l1 = createWebshop({ level: 1 });
    for (let index = 0; index < 60; index++) {
      const served = await l1.startSession({ split: "test", index }, withDb);
      const inProcess = await l1.startSession({ split: "test", index }, without);
      expect(served.observation, `test task ${index}`).toEqual(inProcess.observation);
    }
  });
});
