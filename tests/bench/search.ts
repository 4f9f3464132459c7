import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLocalDb } from "../../environments/data/local-db.js";
import { envSql } from "../../environments/data/sql.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { ensureCorpus, ftsRetriever } from "../../environments/search/fts-store.js";
import { createSearchEnvironment } from "../../environments/search/index.js";
import { indexWorld, worldQuestion, worldTask } from "../../environments/search/questions.js";
import type { SearchSource } from "../../environments/search/sources.js";
import { generateWorld, type WorldSize } from "../../environments/search/world.js";
import { hashString } from "../../shared/random.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { pct, replayLoad } from "./replay.js";

/**
 * `npm run bench:search`: (1) search latency over a generated corpus of 100,000 passages in a local
 * SQLite file (the Node path), per query and per full search step; (2) steps/s of the built-in search
 * env over HTTP at concurrency 64, its server in its own process. Prints one JSON object.
 */

// 1,000 + 9,000 + 60,000 + 5,000 + 25,000 = 100,000 passages.
const BIG: WorldSize = { countries: 1_000, cities: 9_000, people: 60_000, orgs: 5_000, works: 25_000 };
const QUERIES = 2_000;
const EXACT_QUERIES = 200;
const CONCURRENCY = 64;
const DURATION_MS = 10_000;

async function corpusBench(dir: string) {
  const big = indexWorld(generateWorld(hashString("bench/100k"), BIG));
  const local = await openLocalDb(join(dir, "corpus.db"));
  const db = envSql({ bindings: { EDGEGYM_DB: local } });
  if (!db) throw new Error("no raw SQL on the local db");
  const t0 = performance.now();
  const corpus = await ensureCorpus(db, "bench/100k", "1", () => big.passages);
  if (!corpus.ok) throw new Error(corpus.error);
  const loadMs = performance.now() - t0;

  // Half the queries name an entity (what the expert sends), half are whole questions (what a policy sends).
  const questions = Array.from({ length: QUERIES }, (_, i) => worldQuestion(big, 7, i));
  const queries = questions.map((q, i) => (i % 2 === 0 ? (q.supporting[0] ?? "") : q.question));
  const retriever = ftsRetriever(db, corpus.value);
  const latency: number[] = [];
  let [top1, top5] = [0, 0];
  for (const [i, q] of queries.entries()) {
    const s = performance.now();
    const r = await retriever.search(q, 5);
    latency.push(performance.now() - s);
    if (i % 2 === 0 && r.ok && r.value[0]?.title === q) top1++;
    if (i % 2 === 0 && r.ok && r.value.some((h) => h.title === q)) top5++;
  }
  // The same search without common-word pruning (plain bm25() over every word), on fewer queries.
  const exact = ftsRetriever(db, corpus.value, { fraction: 1, minDocs: 0 });
  const exactLatency: number[] = [];
  let exactTop1 = 0;
  for (const [i, q] of queries.slice(0, EXACT_QUERIES).entries()) {
    const s = performance.now();
    const r = await exact.search(q, 5);
    exactLatency.push(performance.now() - s);
    if (i % 2 === 0 && r.ok && r.value[0]?.title === q) exactTop1++;
  }

  // A whole search step through the environment: unseal the token, load the task, query, seal.
  const source: SearchSource = {
    key: "bench/100k",
    tasks: {
      id: "bench/100k",
      splits: ["train", "test"],
      count: () => QUERIES,
      get: (_s, i) => ({ id: String(i), ...(questions[i] as (typeof questions)[number]) }),
    },
    corpus: async () => ({ name: "bench/100k", hash: "1", passages: () => big.passages }),
    inMemory: false,
  };
  const env = createSearchEnvironment({ name: "search-bench", description: "bench", source });
  const rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: local } };
  const stepLatency: number[] = [];
  for (let i = 0; i < 500; i++) {
    const { session } = await env.startSession({ split: "train", index: i }, rt);
    const q = questions[i]?.question ?? "";
    const s = performance.now();
    await env.step({ session, action: { content: formatHermesCall("search", { query: q }) } }, rt);
    stepLatency.push(performance.now() - s);
  }
  local.close();
  return {
    passages: corpus.value.passages,
    loadSeconds: Number((loadMs / 1000).toFixed(2)),
    query: { count: QUERIES, p50Ms: pct(latency, 0.5), p99Ms: pct(latency, 0.99) },
    /** Queries naming an entity (the expert's): is its passage first, or in the 5 results? */
    entityQueries: { top1: top1 / (QUERIES / 2), top5: top5 / (QUERIES / 2) },
    unprunedQuery: {
      count: EXACT_QUERIES,
      p50Ms: pct(exactLatency, 0.5),
      p99Ms: pct(exactLatency, 0.99),
      entityTop1: exactTop1 / (EXACT_QUERIES / 2),
    },
    searchStep: { count: stepLatency.length, p50Ms: pct(stepLatency, 0.5), p99Ms: pct(stepLatency, 0.99) },
  };
}

function startHost(
  secrets: Record<string, string>,
  dbPath: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/bench/search-host.ts"], {
    env: { ...process.env, EDGEGYM_BENCH_BINDINGS: JSON.stringify(secrets), EDGEGYM_BENCH_DB: dbPath },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve({ child, port: JSON.parse(d.toString()).port }));
    child.once("exit", (code) => reject(new Error(`search host exited with ${code}`)));
  });
}

/** The expert's actions for built-in task `index`, computed client-side so the load is sessions and steps only. */
function expertActions(index: number): string[] {
  const t = worldTask("train", index);
  return [
    ...t.supporting.map((q) => formatHermesCall("search", { query: q })),
    `<answer>${t.answers[0]}</answer>`,
  ];
}

async function loadBench(dir: string) {
  const { child, port } = await startHost(await generateSecrets(), join(dir, "host.db"));
  try {
    return await replayLoad({
      base: `http://127.0.0.1:${port}/envs/search`,
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      tasks: 10_000,
      actions: expertActions,
    });
  } finally {
    child.kill("SIGTERM");
  }
}

const dir = await mkdtemp(join(tmpdir(), "edgegym-bench-search-"));
try {
  const corpus100k = await corpusBench(dir);
  const http = await loadBench(dir);
  console.log(JSON.stringify({ bench: "search", node: process.version, corpus100k, http }, null, 2));
} finally {
  await rm(dir, { recursive: true, force: true });
}
