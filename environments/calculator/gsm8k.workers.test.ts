import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { playExpert, protocolClient } from "../../tests/conformance/client.js";
import { saveDataset } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import { importGsm8k } from "./gsm8k.js";

const client = protocolClient({
  baseUrl: "http://edgegym.test/envs/calculator-gsm8k",
  fetch: (input, init) => SELF.fetch(input, init),
  secrets: {},
});

it("serves calculator-gsm8k from the D1 binding inside workerd, 404 dataset_not_imported until imported", async () => {
  const missing = await client.post("/v1/sessions", { split: "train", index: 0 });
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { code: string }).code).toBe("dataset_not_imported");

  const record = { question: "Half of 18, plus 4?", answer: "18/2=<<18/2=9>>9\n9+4=<<9+4=13>>13\n#### 13" };
  const imported = importGsm8k(JSON.stringify(record), { split: "train" });
  const db = envDb({ bindings: { DB: env.DB } });
  if (!imported.ok || db === undefined) throw new Error("no dataset or no D1 binding");
  await saveDataset(db, imported.value);

  const manifest = await client.manifest();
  expect(manifest.splits).toEqual({ train: 1, test: 0 });
  const { last } = await playExpert(client, { split: "train", index: 0 }, manifest.limits.maxSteps);
  expect(last.reward).toBe(1);
});

it("reads '#### 13' followed by a numbered line as 13 inside workerd, not 132", async () => {
  const { session } = await client.start({ split: "train", index: 0 });
  const step = await client.step(session, { content: "9 + 4 = 13\n#### 13\n\n2. The half of 18 is 9" });
  expect(step.info.answer).toBe(13);
  expect(step.reward).toBe(1);
});
