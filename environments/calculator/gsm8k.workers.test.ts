import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { saveDataset } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import { importGsm8k } from "./gsm8k.js";

const BASE = "http://edgegym.test/envs/calculator-gsm8k";
const post = (path: string, body: unknown) =>
  SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

it("serves calculator-gsm8k from the D1 binding inside workerd, 404 dataset_not_imported until imported", async () => {
  const missing = await post("/v1/sessions", { split: "train", index: 0 });
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { code: string }).code).toBe("dataset_not_imported");

  const record = { question: "Half of 18, plus 4?", answer: "18/2=<<18/2=9>>9\n9+4=<<9+4=13>>13\n#### 13" };
  const imported = importGsm8k(JSON.stringify(record), { split: "train" });
  const db = envDb({ bindings: { DB: env.DB } });
  if (!imported.ok || db === undefined) throw new Error("no dataset or no D1 binding");
  await saveDataset(db, imported.value);

  const manifest = (await (await SELF.fetch(`${BASE}/v1/manifest`)).json()) as {
    splits: Record<string, number>;
  };
  expect(manifest.splits).toEqual({ train: 1, test: 0 });
  const start = await post("/v1/sessions", { split: "train", index: 0 });
  expect(start.status).toBe(201);
  let { session } = (await start.json()) as { session: string };
  for (;;) {
    const { action } = (await (await post("/v1/expert", { session })).json()) as { action: unknown };
    const step = (await (await post("/v1/step", { session, action })).json()) as {
      session: string;
      reward: number;
      done: boolean;
    };
    if (step.done) {
      expect(step.reward).toBe(1);
      break;
    }
    session = step.session;
  }
});

it("reads '#### 13' followed by a numbered line as 13 inside workerd, not 132", async () => {
  const start = await post("/v1/sessions", { split: "train", index: 0 });
  expect(start.status).toBe(201);
  const { session } = (await start.json()) as { session: string };
  const action = { content: "9 + 4 = 13\n#### 13\n\n2. The half of 18 is 9" };
  const step = (await (await post("/v1/step", { session, action })).json()) as {
    reward: number;
    info: { answer: number };
  };
  expect(step.info.answer).toBe(13);
  expect(step.reward).toBe(1);
});
