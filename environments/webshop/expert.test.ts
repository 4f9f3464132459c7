import { describe, expect, it } from "vitest";
import { saveDataset } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { type Environment, generateSecrets } from "../kit/index.js";
import { importWebshopAnnotations, importWebshopProducts } from "./importers.js";
import { createWebshop, createWebshopReal } from "./index.js";
import { webshopSample as sample } from "./sample-data.js";

async function play(
  env: Environment,
  runtime: { bindings: Record<string, unknown> },
  split: string,
  index: number,
) {
  const start = await env.startSession({ split, index }, runtime);
  let session = start.session;
  for (;;) {
    const { action } = await env.expert(session, runtime);
    const r = await env.step({ session, action }, runtime);
    if (r.done) return r.reward;
    session = r.session;
  }
}

describe("the WebShop expert", () => {
  it("buys with reward 1.0 on at least 99% of procedural goals", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const env = createWebshop({ catalogSize: 1000 });
    const rewards = [];
    for (let i = 0; i < 100; i++) rewards.push(await play(env, runtime, "train", i));
    expect(rewards.filter((r) => r === 1).length).toBeGreaterThanOrEqual(99);
  });

  it("on the imported sample: goals made from items_ins_v2, bought with reward 1.0 on most", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const env = createWebshopReal();
    await expect(env.startSession({ split: "train", index: 0 }, runtime)).rejects.toMatchObject({
      code: "dataset_not_imported",
    });
    for (const r of [
      importWebshopProducts(sample("documents_100.jsonl")),
      importWebshopAnnotations(sample("items_ins_v2_1000.json")),
    ]) {
      if (!r.ok) throw new Error(r.error);
      const saved = await saveDataset(db, r.value);
      if (!saved.ok) throw new Error(saved.error);
    }
    const { splits } = await env.manifest(runtime);
    // 44 of the 100 products have a synthetic instruction; their option combinations give 501 goals,
    // a tenth (50) held out as test.
    expect(splits).toEqual({ train: 451, test: 50 });
    const rewards = [];
    for (let i = 0; i < 451; i += 9) rewards.push(await play(env, runtime, "train", i));
    expect(rewards.filter((r) => r === 1).length / rewards.length).toBeGreaterThanOrEqual(0.9);
  });

  it("webshop-real-human makes WebShop's human goals: the instruction without its dot, plus a price bound", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    for (const r of [
      importWebshopProducts(sample("documents_100.jsonl")),
      importWebshopAnnotations(sample("items_ins_v2_1000.json")),
    ]) {
      if (!r.ok) throw new Error(r.error);
      await saveDataset(db, r.value);
    }
    const env = createWebshopReal("human");
    // One human instruction in the sample: one goal, and a tenth (at least one) is test.
    expect((await env.manifest(runtime)).splits).toEqual({ train: 0, test: 1 });
    const start = await env.startSession({ split: "test", index: 0 }, runtime);
    expect(start.observation.messages.at(-1)?.content).toMatch(
      /^WebShop \[SEP\] Instruction: \[SEP\] i am looking for a gluten free, 100% vegan plant based protein shake that is soy-free(, and price lower than \d+\.00 dollars)? \[SEP\] Search$/,
    );
  });
});
