import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { playExpert, protocolClient } from "../../tests/conformance/client.js";
import { describeConformance } from "../../tests/conformance/index.js";
import { saveDataset } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import { createEnvironmentApp } from "../kit/index.js";
import { tokenSetRatio } from "./fuzzy.js";
import { importWebshopAnnotations, importWebshopProducts } from "./importers.js";
import { createWebshop, createWebshopReal } from "./index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};
const app = createEnvironmentApp(createWebshop({ catalogSize: 200 }));
const bindings = { ...secrets, DB: env.DB };
const send = async (input: string, init?: RequestInit) => app.fetch(new Request(input, init), bindings);
const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

describeConformance("webshop inside workerd (real D1, wink-nlp and fuzzball bundled)", () => ({
  baseUrl: "http://edgegym.test",
  fetch: send,
  secrets,
}));

describe("webshop inside workerd", () => {
  it("searches the catalog in D1 with FTS5 and buys with the expert for reward 1", async () => {
    const client = protocolClient({ baseUrl: "http://edgegym.test", fetch: send, secrets });
    // Train goal 1: one the expert buys a product scored 1 for (it does on 82 of train goals 0..99).
    const { last } = await playExpert(client, { split: "train", index: 1 }, 15);
    expect(last.done).toBe(true);
    expect(last.reward).toBe(1);
    expect(last.info.reward_details).toMatchObject({ r_type: 1, r_price: 1 });
    expect(last.info.success).toBe(true);
  });

  it("is served by the worker entry at /envs/webshop and /envs/webshop-real", async () => {
    const manifest = (await (await SELF.fetch("http://edgegym.test/envs/webshop/v1/manifest")).json()) as {
      name: string;
      limits: { maxSteps: number };
      splits: Record<string, number>;
    };
    expect(manifest).toMatchObject({ name: "webshop", limits: { maxSteps: 15 }, splits: { train: 10_000 } });
    const res = await SELF.fetch(
      "http://edgegym.test/envs/webshop-real/v1/sessions",
      json({ split: "train" }),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "dataset_not_imported" });
  });

  it("webshop-real makes goals from products and annotations saved in D1, and the expert buys", async () => {
    const db = envDb({ bindings: { DB: env.DB } });
    if (!db) throw new Error("no D1 binding");
    const items = [
      {
        asin: "B0LAMP0001",
        name: "Brass Desk Lamp",
        pricing: "$25.0",
        query: "desk lamp",
        category: "garden",
        product_category: "Home › Lighting › Lamps",
        small_description: ["Warm light"],
        customization_options: { Color: [{ value: "Gold" }, { value: "Black" }] },
      },
      {
        asin: "B0LAMP0002",
        name: "Steel Floor Lamp",
        pricing: "$60.0",
        query: "floor lamp",
        category: "garden",
        product_category: "Home › Lighting › Lamps",
        small_description: ["Tall"],
      },
    ];
    const notes = {
      B0LAMP0001: {
        attributes: ["warm light"],
        instruction: "i need a desk lamp with warm light",
        instruction_attributes: ["warm light"],
      },
    };
    for (const r of [
      importWebshopProducts(JSON.stringify(items)),
      importWebshopAnnotations(JSON.stringify(notes)),
    ]) {
      if (!r.ok) throw new Error(r.error);
      expect((await saveDataset(db, r.value)).ok).toBe(true);
    }
    const real = createEnvironmentApp(createWebshopReal());
    const client = protocolClient({
      baseUrl: "http://edgegym.test",
      fetch: async (input, init) => real.fetch(new Request(input, init), bindings),
      secrets,
    });
    // One annotated product with two colours: two goals; a tenth, at least one, is test.
    expect((await client.manifest()).splits).toEqual({ train: 1, test: 1 });
    const { last } = await playExpert(client, { split: "train", index: 0 }, 15);
    expect(last).toMatchObject({ done: true, reward: 1 });
  });
});

describe("WebShop's fuzzy match inside workerd (fuzzball's ESM build, difflib ratio)", () => {
  it("scores as thefuzz 0.19.0: 85 for the binoculars pair, 100 for ｘｌ and for x‑large vs x-large", () => {
    // Worked out in fuzzy.test.ts: max(2·14/34, 2·14/33, 2·16/39) = 84.85 → 85.
    expect(tokenSetRatio("10x50 uhd binoculars", "8x40 uhd binoculars")).toBe(85);
    expect(tokenSetRatio("ｘｌ", "ｘｌ")).toBe(100);
    expect(tokenSetRatio("x\u2011large", "x-large")).toBe(100);
  });
});
