import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SHARED_DATA_DIR } from "../../environments/data/data-origins.js";
import { saveDataset } from "../../environments/data/datasets.js";
import { openLocalDb } from "../../environments/data/local-db.js";
import { envSql } from "../../environments/data/sql.js";
import { type Environment, generateSecrets } from "../../environments/kit/index.js";
import { browse } from "../../environments/webshop/browser.js";
import type { WebshopSource } from "../../environments/webshop/catalog.js";
import { builtinSource, importedSource } from "../../environments/webshop/catalog.js";
import { type CatalogStore, catalogStore, ensureCatalog } from "../../environments/webshop/catalog-store.js";
import { expertCommand } from "../../environments/webshop/expert.js";
import { builtinCatalog, builtinGoal, GENERATOR_VERSION } from "../../environments/webshop/generator.js";
import { goalOptionValues } from "../../environments/webshop/goal.js";
import { importWebshopAnnotations, importWebshopProducts } from "../../environments/webshop/importers.js";
import { createWebshop } from "../../environments/webshop/index.js";
import type { PageState } from "../../environments/webshop/pages.js";
import { pct, replayLoad } from "./replay.js";

/**
 * `npm run bench:webshop`: (1) expert success (reward exactly 1) on the default built-in goals and on
 * the imported sample; (2) BM25 search latency over a generated catalog of 10,000 products in a local
 * SQLite file, per query and per search step; (3) steps/s over HTTP at concurrency 64 against that
 * catalog, the server in its own process. Prints one JSON object.
 */

const PRODUCTS = 10_000;

/** WebShop's 100-product sample beside the repository (`../shared/data/webshop`). */
const webshopSample = (file: string) =>
  readFileSync(resolve(import.meta.dirname, "../..", SHARED_DATA_DIR, "webshop", file), "utf8");
const QUERIES = 2_000;
const CONCURRENCY = 64;
const DURATION_MS = 10_000;
const RECORDED = 256;

type Runtime = { bindings: Record<string, unknown> };

/** Plays the expert on one goal directly (no kit, so held-out goals count too): its commands and reward. */
async function playDirect(source: WebshopSource, runtime: Runtime, split: string, index: number) {
  const goal = await source.tasks.get(split, index, runtime);
  const store = await source.store(runtime);
  let state: PageState = { p: "start" };
  const commands: string[] = [];
  for (let step = 0; step < 15; step++) {
    const command = await expertCommand(state, goal, store);
    if (!command.ok) throw new Error(command.error);
    commands.push(command.value);
    const r = await browse(command.value, state, goal, store);
    if (!r.ok) throw new Error(r.error);
    if (r.value.reward) return { commands, reward: r.value.reward.total };
    state = r.value.state;
  }
  return { commands, reward: 0 };
}

async function rate(source: WebshopSource, runtime: Runtime, split: string, count: number) {
  let solved = 0;
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const { reward } = await playDirect(source, runtime, split, i);
    sum += reward;
    if (reward === 1) solved++;
  }
  return {
    goals: count,
    solved,
    rate: Number((solved / count).toFixed(4)),
    meanReward: Number((sum / count).toFixed(4)),
  };
}

async function expertRates(secrets: Record<string, string>) {
  const db = await openLocalDb(":memory:");
  const runtime = { bindings: { ...secrets, EDGEGYM_DB: db } };
  const procedural = {
    train: await rate(builtinSource(1000), runtime, "train", 1000),
    test: await rate(builtinSource(1000), runtime, "test", 200),
  };
  for (const r of [
    importWebshopProducts(webshopSample("documents_100.jsonl")),
    importWebshopAnnotations(webshopSample("items_ins_v2_1000.json")),
  ]) {
    if (!r.ok) throw new Error(r.error);
    const saved = await saveDataset(db, r.value);
    if (!saved.ok) throw new Error(saved.error);
  }
  const imported = importedSource();
  const sample = {
    train: await rate(imported, runtime, "train", await imported.tasks.count("train", runtime)),
    test: await rate(imported, runtime, "test", await imported.tasks.count("test", runtime)),
  };
  db.close();
  return { procedural1000Products: procedural, importedSample: sample };
}

const latencyOf = async (store: CatalogStore, queries: readonly string[]) => {
  const latency: number[] = [];
  const cpu = process.cpuUsage();
  for (const q of queries) {
    const s = performance.now();
    const r = await store.search(q);
    latency.push(performance.now() - s);
    if (!r.ok) throw new Error(r.error);
  }
  // CPU time of this process per query (libsql runs SQLite on this thread): less sensitive to other load.
  const used = process.cpuUsage(cpu);
  const cpuMeanMs = Number(((used.user + used.system) / 1000 / queries.length).toFixed(3));
  return { count: queries.length, p50Ms: pct(latency, 0.5), p99Ms: pct(latency, 0.99), cpuMeanMs };
};

async function searchBench(dir: string, secrets: Record<string, string>) {
  const local = await openLocalDb(join(dir, "catalog.db"));
  const runtime = { bindings: { ...secrets, EDGEGYM_DB: local } };
  const sql = envSql(runtime);
  if (!sql) throw new Error("libsql drizzle database has no all/run/batch");
  const source = builtinSource(PRODUCTS);
  const t0 = performance.now();
  const ref = await ensureCatalog(sql, `builtin-${PRODUCTS}`, `${GENERATOR_VERSION}/${PRODUCTS}`, () =>
    builtinCatalog(PRODUCTS),
  );
  if (!ref.ok) throw new Error(ref.error);
  const loadMs = performance.now() - t0;
  // Uncached, so every query reaches FTS5.
  const raw = catalogStore(sql, ref.value, { searchCache: 0, productCache: 0 });
  const catalog = builtinCatalog(PRODUCTS);
  const goals = Array.from({ length: QUERIES }, (_, i) => builtinGoal(catalog, "train", i));
  // What the expert sends (a goal's query), what a policy typically sends (query, attributes and option
  // values as keywords), and a stress case (the whole instruction, whose words match most products).
  const keywords = goals.map((g) => [g.query, ...g.attributes, ...goalOptionValues(g)].join(" "));
  const query = {
    goalQuery: await latencyOf(
      raw,
      goals.map((g) => g.query),
    ),
    keywords: await latencyOf(raw, keywords),
    wholeInstruction: await latencyOf(
      raw,
      goals.map((g) => g.instruction),
    ),
  };
  // A whole search step through the environment (keywords): unseal the token, regenerate the goal,
  // query, render, seal. Distinct queries, so the env's search cache rarely helps.
  const env: Environment = createWebshop({ catalogSize: PRODUCTS });
  const stepLatency: number[] = [];
  for (let i = 0; i < 500; i++) {
    const { session } = await env.startSession({ split: "train", index: i }, runtime);
    const s = performance.now();
    await env.step({ session, action: { content: `search[${keywords[i]}]` } }, runtime);
    stepLatency.push(performance.now() - s);
  }
  const recorded = [];
  for (let i = 0; i < RECORDED; i++) recorded.push((await playDirect(source, runtime, "train", i)).commands);
  local.close();
  return {
    result: {
      products: PRODUCTS,
      loadSeconds: Number((loadMs / 1000).toFixed(2)),
      query,
      keywordSearchStep: {
        count: stepLatency.length,
        p50Ms: pct(stepLatency, 0.5),
        p99Ms: pct(stepLatency, 0.99),
      },
    },
    recorded,
  };
}

function startHost(
  secrets: Record<string, string>,
  dbPath: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/bench/webshop-host.ts"], {
    env: {
      ...process.env,
      EDGEGYM_BENCH_BINDINGS: JSON.stringify(secrets),
      EDGEGYM_BENCH_DB: dbPath,
      EDGEGYM_BENCH_PRODUCTS: String(PRODUCTS),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve({ child, port: JSON.parse(d.toString()).port }));
    child.once("exit", (code) => reject(new Error(`webshop host exited with ${code}`)));
  });
}

/** Replays the expert's recorded episodes (the env is deterministic) at concurrency 64: sessions and steps only. */
async function loadBench(dir: string, secrets: Record<string, string>, recorded: string[][]) {
  // The host reuses the catalog file the search bench loaded, so it starts serving at once.
  const { child, port } = await startHost(secrets, join(dir, "catalog.db"));
  try {
    const result = await replayLoad({
      base: `http://127.0.0.1:${port}/envs/webshop`,
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      tasks: recorded.length,
      actions: (index) => recorded[index] ?? [],
    });
    return { ...result, products: PRODUCTS };
  } finally {
    child.kill("SIGTERM");
  }
}

const dir = await mkdtemp(join(tmpdir(), "edgegym-bench-webshop-"));
try {
  const secrets = await generateSecrets();
  const expert = await expertRates(secrets);
  const { result: catalog10k, recorded } = await searchBench(dir, secrets);
  const http = await loadBench(dir, secrets, recorded);
  // Other work on the machine inflates every figure: the 1-minute load average says how much.
  const loadAverage = loadavg()[0];
  console.log(
    JSON.stringify(
      { bench: "webshop", node: process.version, loadAverage, expert, catalog10k, http },
      null,
      2,
    ),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
