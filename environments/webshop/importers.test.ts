import { describe, expect, it } from "vitest";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import {
  importWebshopAnnotations,
  importWebshopHumanInstructions,
  importWebshopProducts,
} from "./importers.js";

describe("WebShop importers", () => {
  it("reads documents.jsonl ({id, contents, product}) into processed products", () => {
    const r = importWebshopProducts(readFixture("webshop", "documents_17.jsonl"));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.name).toBe("webshop");
    // 17 products (one a line), and the one human instruction that the slice carries inside a product.
    expect(r.value.tasks.filter((t) => t.split === "products")).toHaveLength(17);
    expect(r.value.tasks.filter((t) => t.split === "human").map((t) => t.payload)).toEqual([
      {
        asin: "B07FYPSNH8",
        instruction: "i am looking for a gluten free, 100% vegan plant based protein shake that is soy-free.",
        instructionAttributes: ["gluten free"],
        instructionOptions: [],
      },
    ]);
    expect(r.value.tasks[0]?.payload).toMatchObject({
      asin: "B06Y3VLDFB",
      title: "Vhomes Lights Reclaimed Wood Console Table The Genessis Collection Sofa-Tables",
      query: "console tables",
      category: "garden",
      productCategory: "Home & Kitchen › Furniture › Living Room Furniture › Tables › Sofa & Console Tables",
      pricing: [877.8],
      price: 877.8,
      options: {},
      attributes: ["console table", "solid wood"],
      rating: "N.A.",
    });
  });

  it("reads the raw items_shuffle layout as WebShop's load_products does", () => {
    const raw = [
      {
        asin: "B0RAW00001",
        name: "Trail Jacket",
        full_description: "Warm.",
        small_description: "Zip front",
        pricing: "$10.99$15.99",
        customization_options: { Color: [{ value: "Navy/White " }, { value: "Black" }], Size: null },
        product_category: "Clothing › Jackets",
        category: "fashion",
        query: " Jackets ",
      },
      { asin: "B0RAW00001", name: "duplicate", pricing: "" },
      { asin: "nan", name: "skipped" },
      { asin: "B0TOOLONG000", name: "skipped" },
      { asin: "B0RAW00002", name: "No Price", customization_options: "" },
    ];
    const r = importWebshopProducts(JSON.stringify(raw));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.tasks.map((t) => (t.payload as { asin: string }).asin)).toEqual([
      "B0RAW00001",
      "B0RAW00002",
    ]);
    expect(r.value.tasks[0]?.payload).toMatchObject({
      title: "Trail Jacket",
      description: "Warm.",
      bullets: ["Zip front"],
      pricing: [10.99, 15.99],
      options: { color: ["navy | white", "black"] },
      attributes: ["DUMMY_ATTR"],
      query: "jackets",
    });
    // No pricing: WebShop's $100.
    expect(r.value.tasks[1]?.payload).toMatchObject({ pricing: [100], price: 100, options: {} });
  });

  it("reads items_ins_v2 annotations and refuses malformed files with a reason", () => {
    const r = importWebshopAnnotations(readFixture("webshop", "items_ins_v2_1000.json"));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.tasks).toHaveLength(1000);
    expect(r.value.tasks.find((t) => (t.payload as { asin: string }).asin === "B07DJJXGB5")?.payload).toEqual(
      {
        asin: "B07DJJXGB5",
        attributes: ["tea tree", "essential oils", "natural ingredients"],
        instruction: "Find me scrubs & body treatments with tea tree, natural ingredients",
        instructionAttributes: ["tea tree", "natural ingredients"],
      },
    );
    expect(importWebshopAnnotations("not json").ok).toBe(false);
    expect(importWebshopAnnotations("[1]").ok).toBe(false);
    expect(importWebshopProducts("{oops").ok).toBe(false);
    expect(importWebshopProducts('[{"asin": 5}]')).toMatchObject({ ok: false });
    expect(importWebshopProducts("[]")).toEqual({ ok: false, error: "no WebShop products found" });
  });

  it("reads items_human_ins ({asin: [{instruction, instruction_attributes, instruction_options}]})", () => {
    const text = JSON.stringify({
      B0AAAAAAA1: [
        {
          instruction: "i want red socks.",
          instruction_attributes: ["cotton"],
          instruction_options: ["red", "large"],
        },
        { instruction: "no attributes" },
        { bad: true },
      ],
    });
    const r = importWebshopHumanInstructions(text);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.tasks).toEqual([
      {
        split: "human",
        payload: {
          asin: "B0AAAAAAA1",
          instruction: "i want red socks.",
          instructionAttributes: ["cotton"],
          instructionOptions: ["red", "large"],
        },
      },
      {
        split: "human",
        payload: {
          asin: "B0AAAAAAA1",
          instruction: "no attributes",
          instructionAttributes: [],
          instructionOptions: [],
        },
      },
    ]);
    expect(importWebshopHumanInstructions("{}").ok).toBe(false);
    expect(importWebshopHumanInstructions("[").ok).toBe(false);
  });
});
