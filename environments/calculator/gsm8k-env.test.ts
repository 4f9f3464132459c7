import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDataset } from "../data/datasets.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { importGsm8k } from "./gsm8k.js";
import { calculatorGsm8k } from "./index.js";

type Served = { url: string; close(): Promise<void> };

/** `calculatorGsm8k` over real HTTP on a free port, with the given bindings, as `npm run envs` serves it. */
async function serveWith(bindings: Record<string, unknown>): Promise<Served> {
  const app = createEnvironmentsHost([calculatorGsm8k]);
  return new Promise((done) => {
    const server = serve(
      { fetch: (req) => app.fetch(req, bindings), port: 0, hostname: "127.0.0.1" },
      (info) =>
        done({
          url: `http://127.0.0.1:${(info as AddressInfo).port}/envs/calculator-gsm8k`,
          close: () => new Promise<void>((closed) => server.close(() => closed())),
        }),
    );
  });
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const RECORDS = [
  {
    question: "Tom has 3 bags of 4 apples and eats 2. How many are left?",
    answer: "3*4=<<3*4=12>>12\n12-2=<<12-2=10>>10\n#### 10",
  },
  { question: "A $20 book is 25% off. Price?", answer: "20*0.75=<<20*0.75=15>>15\n#### 15" },
];

let secrets: Record<string, string>;
let db: LocalDb;
beforeAll(async () => {
  secrets = await generateSecrets();
  db = await openLocalDb(":memory:");
});
afterAll(() => db.close());

describe("calculator-gsm8k over HTTP on Node", () => {
  it("counts 0 and answers 404 dataset_not_imported, naming the import command, before any import", async () => {
    for (const bindings of [secrets, { ...secrets, EDGEGYM_DB: db }]) {
      const s = await serveWith(bindings);
      const manifest = await (await fetch(`${s.url}/v1/manifest`)).json();
      expect(manifest).toMatchObject({ name: "calculator-gsm8k", splits: { train: 0, test: 0 } });
      const res = await post(`${s.url}/v1/sessions`, { split: "train", index: 0 });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      const problem = (await res.json()) as { code: string; detail: string };
      expect(problem.code).toBe("dataset_not_imported");
      expect(problem.detail).toContain("npm run data -- import gsm8k");
      // An unknown split is still unknown_split, imported or not.
      expect((await (await post(`${s.url}/v1/sessions`, { split: "dev" })).json()).code).toBe(
        "unknown_split",
      );
      await s.close();
    }
  });

  it("reads a database without migrations as nothing imported, and says to apply them", async () => {
    const client = createClient({ url: ":memory:" });
    const s = await serveWith({ ...secrets, EDGEGYM_DB: drizzle(client) });
    const manifest = await (await fetch(`${s.url}/v1/manifest`)).json();
    expect(manifest.splits).toEqual({ train: 0, test: 0 });
    const res = await post(`${s.url}/v1/sessions`, { split: "test" });
    expect(res.status).toBe(404);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe("dataset_not_imported");
    expect(problem.detail).toContain("apply migrations");
    await s.close();
    client.close();
  });

  it("serves imported tasks, with the dataset hash in the content hash, and its expert solves them", async () => {
    const empty = await serveWith({ ...secrets, EDGEGYM_DB: db });
    const before = (await (await fetch(`${empty.url}/v1/manifest`)).json()).contentHash;
    await empty.close();

    const text = RECORDS.map((r) => JSON.stringify(r)).join("\n");
    const imported = importGsm8k(text, { split: "train" });
    if (!imported.ok) throw new Error(imported.error);
    await saveDataset(db, imported.value);

    const s = await serveWith({ ...secrets, EDGEGYM_DB: db });
    const manifest = await (await fetch(`${s.url}/v1/manifest`)).json();
    expect(manifest.splits).toEqual({ train: 2, test: 0 });
    expect(manifest.contentHash).not.toBe(before);

    const start = await post(`${s.url}/v1/sessions`, { split: "train", index: 0 });
    expect(start.status).toBe(201);
    const session = await start.json();
    expect(session.observation.messages[1]).toEqual({ role: "user", content: RECORDS[0]?.question });
    expect((await post(`${s.url}/v1/sessions`, { split: "train", index: 2 })).status).toBe(404);

    let token = session.session;
    let last = { reward: 0, done: false };
    const transcript: string[] = [];
    while (!last.done) {
      const { action } = await (await post(`${s.url}/v1/expert`, { session: token })).json();
      transcript.push(action.content);
      const step = await (await post(`${s.url}/v1/step`, { session: token, action })).json();
      token = step.session;
      last = step;
    }
    // Two annotations (3*4 and 12-2) fit one call each in the first two actions, then the answer.
    expect(transcript).toHaveLength(3);
    expect(transcript[2]).toBe("#### 10");
    expect(last.reward).toBe(1);
    await s.close();
  });
});
