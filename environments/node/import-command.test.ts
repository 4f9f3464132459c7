import { readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../shared/db/schema.js";
import { countTasks, datasetHash, getTask } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { inferSplit, runImport } from "./import-command.js";

const record = (q: string, expr: string, value: number) =>
  JSON.stringify({ question: q, answer: `It is ${expr} = <<${expr}=${value}>>${value}.\n#### ${value}` });
const TRAIN = [
  record("2 and 3?", "2+3", 5),
  record("4 times 5?", "4*5", 20),
  record("9 less 1?", "9-1", 8),
].join("\n");
const TEST = `${record("6 over 2?", "6/2", 3)}\n`;

let dir: string;
let server: Server;
let base: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-import-"));
  await writeFile(join(dir, "train.jsonl"), TRAIN);
  await writeFile(join(dir, "test.jsonl"), TEST);
  await writeFile(join(dir, "broken-train.jsonl"), `${TRAIN}\nnot json`);
  server = createServer((req, res) => {
    if (req.url === "/gsm8k/test.jsonl") res.end(TEST);
    else res.writeHead(404).end("no such file");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

describe("npm run data -- import", () => {
  it("infers the split from the file name as a whole word", () => {
    expect(inferSplit("../shared/data/gsm8k/train.jsonl")).toBe("train");
    expect(inferSplit("/x/gsm8k-test.jsonl")).toBe("test");
    expect(inferSplit("hotpot_dev_distractor_v1.json")).toBe("dev");
    expect(inferSplit("trainer.jsonl")).toBeUndefined();
    expect(inferSplit("data.jsonl")).toBeUndefined();
  });

  it("imports train and test files one at a time into the local SQLite file, keeping both", async () => {
    const file = join(dir, "local.db");
    const train = await runImport({ kind: "gsm8k", path: join(dir, "train.jsonl"), db: file });
    expect(train).toMatchObject({
      ok: true,
      value: { dataset: "gsm8k", counts: { train: 3 }, target: file },
    });
    const test = await runImport({ kind: "gsm8k", path: join(dir, "test.jsonl"), db: file });
    expect(test).toMatchObject({ ok: true, value: { counts: { test: 1 } } });

    const db = await openLocalDb(file);
    expect(await countTasks(db, "gsm8k", "train")).toBe(3);
    expect(await countTasks(db, "gsm8k", "test")).toBe(1);
    expect(await getTask(db, "gsm8k", "train", 1)).toEqual({
      question: "4 times 5?",
      answer: 20,
      calls: ["4*5"],
    });
    expect(test.ok && test.value.hash).toBe(await datasetHash(db, "gsm8k"));
    db.close();
  });

  it("downloads with --url, inferring the split from the URL path", async () => {
    const file = join(dir, "url.db");
    const r = await runImport({ kind: "gsm8k", url: `${base}/gsm8k/test.jsonl`, db: file });
    expect(r).toMatchObject({ ok: true, value: { counts: { test: 1 } } });
    const db = await openLocalDb(file);
    expect(await getTask(db, "gsm8k", "test", 0)).toEqual({
      question: "6 over 2?",
      answer: 3,
      calls: ["6/2"],
    });
    db.close();
  });

  it("reports bad sources and bad data without storing anything", async () => {
    const file = join(dir, "errors.db");
    const cases = [
      [{ kind: "nope", path: "x" }, expect.stringMatching(/^unknown dataset kind "nope"; known: .*gsm8k/)],
      // A name on Object.prototype is no importer either.
      [{ kind: "constructor", path: "x" }, expect.stringMatching(/^unknown dataset kind "constructor"/)],
      [{ kind: "__proto__", path: "x" }, expect.stringMatching(/^unknown dataset kind "__proto__"/)],
      [
        { kind: "gsm8k", path: join(dir, "missing.jsonl") },
        `cannot read ${join(dir, "missing.jsonl")}: ENOENT`,
      ],
      [{ kind: "gsm8k", url: `${base}/gsm8k/gone.jsonl` }, `GET ${base}/gsm8k/gone.jsonl answered 404`],
      [
        { kind: "gsm8k", path: join(dir, "broken-train.jsonl") }, // Three good records, then the bad fourth line.
        `${join(dir, "broken-train.jsonl")}: line 4: not valid JSON`,
      ],
      [{ kind: "gsm8k" }, "give a file path or --url"],
      // A folder goes only to an importer that reads folders (alfworld's); a file never does.
      [{ kind: "gsm8k", path: dir }, `${dir} is a folder; gsm8k imports a file`],
      [
        { kind: "alfworld", path: join(dir, "train.jsonl") },
        `${join(dir, "train.jsonl")}: give a folder of ALFWorld trials (json_2.1.1 or one of its splits), not a file`,
      ],
    ] as const;
    for (const [cmd, error] of cases)
      expect(await runImport({ ...cmd, db: file })).toEqual({ ok: false, error });
    const unreachable = await runImport({ kind: "gsm8k", url: "http://127.0.0.1:9/test.jsonl", db: file });
    expect(unreachable.ok || unreachable.error).toMatch(/^GET http:\/\/127\.0\.0\.1:9\/test\.jsonl failed: /);
    const db = await openLocalDb(file);
    expect(await datasetHash(db, "gsm8k")).toBeUndefined();
    db.close();
  });

  it("writes to a local D1 through wrangler (--d1 local), the same data as the SQLite import", async () => {
    const persistTo = join(dir, "d1");
    const r = await runImport({
      kind: "gsm8k",
      path: join(dir, "train.jsonl"),
      db: "",
      d1: "local",
      persistTo,
    });
    expect(r).toEqual({ ok: true, value: { dataset: "gsm8k", counts: { train: 3 }, target: "d1 (local)" } });

    // Miniflare keeps the local D1 as one SQLite file; read it back with the same data layer.
    const d1Dir = join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
    const [name] = readdirSync(d1Dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
    const client = createClient({ url: `file:${join(d1Dir, name ?? "")}` });
    const d1 = drizzle(client, { schema });
    expect(await countTasks(d1, "gsm8k", "train")).toBe(3);
    expect(await getTask(d1, "gsm8k", "train", 2)).toEqual({
      question: "9 less 1?",
      answer: 8,
      calls: ["9-1"],
    });
    const trainOnly = await runImport({
      kind: "gsm8k",
      path: join(dir, "train.jsonl"),
      db: join(dir, "t.db"),
    });
    expect(trainOnly.ok && trainOnly.value.hash).toBe(await datasetHash(d1, "gsm8k"));
    client.close();
  }, 90_000);
});
