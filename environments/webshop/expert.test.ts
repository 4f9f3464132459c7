import { describe, expect, it } from "vitest";
import { importWebshopSample, playWebshop as play, webshopExpert } from "../../tests/data-checks/webshop.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { createWebshop, createWebshopReal } from "./index.js";

const documents = () => readFixture("webshop", "documents_17.jsonl");
const annotations = () => readFixture("webshop", "items_ins_v2_1000.json");

describe("the WebShop expert", () => {
  it("buys with reward 1.0 on at least 99% of procedural goals", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const env = createWebshop({ catalogSize: 1000 });
    const rewards = [];
    for (let i = 0; i < 100; i++) rewards.push(await play(env, runtime, "train", i));
    expect(rewards.filter((r) => r === 1).length).toBeGreaterThanOrEqual(99);
  });

  it("on the imported slice: goals made from items_ins_v2, bought with reward 1.0 on most", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    await expect(
      createWebshopReal().startSession({ split: "train", index: 0 }, runtime),
    ).rejects.toMatchObject({ code: "dataset_not_imported" });
    db.close();
    // 8 of the slice's 17 products have a synthetic instruction; a goal per option combination:
    // B07B6DVG41 1, B087TR48KK 1, B08ZRR3DZT 5 sizes x 8 colours = 40, B09B7G7P58 13 colours,
    // B08XQRDDT1 2, B07MGB73NJ 5 x 8 = 40, B09KQQNRRM 2, B07FYPSNH8 1: 100 goals, a tenth (10) test.
    // The expert plays every 9th train goal: indices 0, 9, ..., 81, 10 goals; 90% of them is 9.
    const r = await webshopExpert(documents(), annotations(), 9);
    expect(r.splits).toEqual({ train: 90, test: 10 });
    expect(r.tried).toBe(10);
    expect(r.bought).toBeGreaterThanOrEqual(9);
  });

  it("webshop-real-human makes WebShop's human goals: the instruction without its dot, plus a price bound", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    await importWebshopSample(db, documents(), annotations());
    const env = createWebshopReal("human");
    // One human instruction in the slice: one goal, and a tenth (at least one) is test.
    expect((await env.manifest(runtime)).splits).toEqual({ train: 0, test: 1 });
    const start = await env.startSession({ split: "test", index: 0 }, runtime);
    expect(start.observation.messages.at(-1)?.content).toMatch(
      /^WebShop \[SEP\] Instruction: \[SEP\] i am looking for a gluten free, 100% vegan plant based protein shake that is soy-free(, and price lower than \d+\.00 dollars)? \[SEP\] Search$/,
    );
  });
});
