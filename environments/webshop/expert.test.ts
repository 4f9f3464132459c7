import { describe, expect, it } from "vitest";
import { importWebshopSample, playWebshop as play, webshopExpert } from "../../tests/data-checks/webshop.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { browse } from "./browser.js";
import { builtinSource } from "./catalog.js";
import { expertCommand, MAX_SEARCHES } from "./expert.js";
import type { Goal } from "./goal.js";
import { createWebshop, createWebshopReal } from "./index.js";
import type { PageState } from "./pages.js";

const documents = () => readFixture("webshop", "documents_17.jsonl");
const annotations = () => readFixture("webshop", "items_ins_v2_1000.json");

describe("the WebShop expert", () => {
  it("decides from the instruction and the page alone: a goal with another hidden product gets the same commands", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    // webshop-l2's goals, whose instructions name the product's type.
    const source = builtinSource(1000, 2, "type");
    const store = await source.store(runtime);
    const expert = (state: PageState, goal: Goal) =>
      expertCommand(state, goal, store, "product", MAX_SEARCHES, "type");
    for (let i = 0; i < 20; i++) {
      const goal = (await source.tasks.get("train", i, runtime)) as Goal;
      // What the instruction does not say: the product it was made from, its type and its attributes.
      const blind: Goal = {
        ...goal,
        asin: "B0NOTSHOWN",
        name: "Nothing Known",
        query: "x",
        productCategory: "x",
        attributes: [],
      };
      let state: PageState = { p: "start" };
      for (let step = 0; step < 15 && state.p !== "done"; step++) {
        const command = await expert(state, goal);
        expect(await expert(state, blind)).toEqual(command);
        if (!command.ok) throw new Error(command.error);
        const next = await browse(command.value, state, goal, store);
        if (!next.ok) throw new Error(next.error);
        expect(next.value.valid).toBe(true);
        state = next.value.state;
      }
      expect(state.p).toBe("done");
    }
  });

  it("buys a product scored 1 on 98 of 100 procedural goals at every level, and success is exactly that", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    for (const level of [1, 2, 3]) {
      const env = createWebshop({ level });
      const ends = [];
      for (let i = 0; i < 100; i++) ends.push(await play(env, runtime, "train", i));
      // Measured on train 0..99: 100 of 100 at each level (89, 95 and 94 before the instructions named
      // the type; 82, 83 and 81 with the expert that bought the first result under the price bound).
      expect(ends.filter((e) => e.reward === 1).length).toBeGreaterThanOrEqual(98);
      expect(ends.every((e) => e.done && e.info.success === (e.reward === 1))).toBe(true);
    }
  });

  it("counts a purchase scored below 1 but above 0 as no success (before 1.2.0 it was one)", async () => {
    const db = await openLocalDb(":memory:");
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const env = createWebshop({ level: 2 });
    // The expert's episode, but bought on the item page before choosing the goal's option.
    let { session } = await env.startSession({ split: "train", index: 0 }, runtime);
    let page = "";
    for (let step = 0; step < 10 && !page.includes("[SEP] Buy Now"); step++) {
      const r = await env.step({ session, action: (await env.expert(session, runtime)).action }, runtime);
      page = String(r.observation.messages.at(-1)?.content ?? "");
      session = r.session;
    }
    const bought = await env.step({ session, action: { content: "click[buy now]" } }, runtime);
    expect(bought.done).toBe(true);
    expect(bought.reward).toBeGreaterThan(0);
    expect(bought.reward).toBeLessThan(1);
    expect(bought.info.success).toBe(false);
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
