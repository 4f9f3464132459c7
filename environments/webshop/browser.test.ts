import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { openLocalDb } from "../data/local-db.js";
import { envSql } from "../data/sql.js";
import { browse, parseAction } from "./browser.js";
import { type CatalogStore, catalogStore, ensureCatalog } from "./catalog-store.js";
import type { Goal } from "./goal.js";
import { PageState } from "./pages.js";
import type { Product } from "./product.js";

/** 12 widgets (so results run to a second page) and one lamp. */
const widget = (i: number): Product => ({
  asin: `B00000W${String(i).padStart(3, "0")}`,
  title: `Widget Model ${i}`,
  category: "tools",
  query: "widget",
  productCategory: "Tools › Widgets",
  description: `Widget number ${i}.`,
  bullets: ["Sturdy", "Blue finish"],
  pricing: i === 0 ? [10, 12.5] : [20],
  price: i === 0 ? 11 : 20,
  options: i === 0 ? { size: ["small", "large"], color: ["red", "teal"] } : {},
  attributes: ["sturdy"],
  reviews: [],
  rating: "N.A.",
});
const lamp: Product = {
  ...widget(99),
  asin: "B00000LAMP",
  title: "Desk Lamp",
  query: "lamp",
  description: "A lamp.",
};
const products = [...Array.from({ length: 12 }, (_, i) => widget(i)), lamp];

const goal: Goal = {
  asin: "B00000W000",
  query: "widget",
  category: "tools",
  name: "Widget Model 0",
  productCategory: "Tools › Widgets",
  instruction: "i want a small red widget",
  attributes: ["sturdy"],
  priceUpper: 30,
  goalOptions: { color: "red", size: "small" },
};

let store: CatalogStore;
beforeAll(async () => {
  const db = envSql({ bindings: { EDGEGYM_DB: await openLocalDb(":memory:") } });
  if (!db) throw new Error("libsql drizzle database has no all/run/batch");
  const ref = await ensureCatalog(db, "test", "h1", () => products);
  if (!ref.ok) throw new Error(ref.error);
  store = catalogStore(db, ref.value);
});

async function go(state: PageState, command: string) {
  const r = await browse(command, state, goal, store);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("WebShop text-mode pages and transitions", () => {
  it("parses actions as WebShop's regex does: anchored at the start, greedy, argument lowercased", () => {
    expect(parseAction("search[Red Shoes]")).toEqual({ name: "search", arg: "red shoes" });
    expect(parseAction("click[b00] and more")).toEqual({ name: "click", arg: "b00" });
    // Greedy name: it runs to the last "[" that still has a "]" after it.
    expect(parseAction("search[a [b] c]")).toEqual({ name: "search[a ", arg: "b] c" });
    expect(parseAction("search[]")).toBeUndefined();
  });

  it("search shows page 1 with Next >, ten products as asin, title, price; then paging", async () => {
    const results = await go({ p: "start" }, "search[widget]");
    expect(results.valid).toBe(true);
    expect(results.state).toMatchObject({ p: "results", q: "widget", page: 1 });
    const text = results.page.text;
    expect(text.startsWith("Instruction: [SEP] i want a small red widget [SEP] Back to Search [SEP] ")).toBe(
      true,
    );
    expect(text).toContain("[SEP] Page 1 (Total results: 12) [SEP] Next > [SEP] B00000W");
    expect(text.split(" [SEP] ").filter((t) => /^B00000W\d{3}$/.test(t))).toHaveLength(10);
    expect(text).toContain("[SEP] B00000W001 [SEP] Widget Model 1 [SEP] $20.0 [SEP]");
    expect(results.page.clickables.slice(0, 2)).toEqual(["back to search", "next >"]);
    expect(results.page.has_search_bar).toBe(false);

    const second = await go(results.state, "click[next >]");
    expect(second.page.text).toContain("[SEP] Page 2 (Total results: 12) [SEP] < Prev [SEP] Next > [SEP] ");
    expect(second.page.text.split(" [SEP] ").filter((t) => /^B00000W\d{3}$/.test(t))).toHaveLength(2);
    // Widget 0's longer text (its options are indexed too) ranks it below the others, by BM25's length norm.
    expect(second.page.text).toContain("[SEP] B00000W000 [SEP] Widget Model 0 [SEP] $10.0 to $12.5");
    const back = await go(second.state, "click[< prev]");
    expect(back.page.text).toBe(text);
  });

  it("item page: options, title, price, rating, the sub-page buttons and Buy Now; sub-pages and back", async () => {
    const results = await go({ p: "start" }, "search[widget model 0]");
    expect(results.page.clickables).toContain("b00000w000");
    const item = await go(results.state, "click[b00000w000]");
    expect(item.page.text).toBe(
      "Instruction: [SEP] i want a small red widget [SEP] Back to Search [SEP] < Prev [SEP] size [SEP] small " +
        "[SEP] large [SEP] color [SEP] red [SEP] teal [SEP] Widget Model 0 [SEP] Price: $10.0 to $12.5 [SEP] " +
        "Rating: N.A. [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now",
    );
    expect(item.page.clickables).toEqual([
      "back to search",
      "< prev",
      "description",
      "features",
      "reviews",
      "buy now",
      "small",
      "large",
      "red",
      "teal",
    ]);
    const red = await go(item.state, "click[red]");
    expect(red.state).toMatchObject({ p: "item", opts: { color: "red" } });
    const features = await go(red.state, "click[features]");
    expect(features.page.text).toBe(
      "Instruction: [SEP] i want a small red widget [SEP] Back to Search [SEP] < Prev [SEP] Sturdy [SEP] Blue finish",
    );
    expect(features.page.clickables).toEqual(["back to search", "< prev"]);
    const again = await go(features.state, "click[< prev]");
    expect(again.state).toEqual(red.state);
    const toResults = await go(again.state, "click[< prev]");
    expect(toResults.state).toMatchObject({ p: "results", page: 1 });
    const home = await go(again.state, "click[back to search]");
    expect(home.page.text).toBe("WebShop [SEP] Instruction: [SEP] i want a small red widget [SEP] Search");
    expect(home.page).toMatchObject({ has_search_bar: true, clickables: ["search"] });
  });

  it("buy now scores the purchase with the chosen options and ends on the done page", async () => {
    const results = await go({ p: "start" }, "search[widget model 0]");
    const item = await go(results.state, "click[b00000w000]");
    const chosen = await go((await go(item.state, "click[red]")).state, "click[small]");
    const bought = await go(chosen.state, "click[buy now]");
    // r_type 1, n_attr 1, n_opt 2, r_price [11 ≤ 30] = 1: (1 + 2 + 1) / (1 + 2 + 1) = 1.
    expect(bought.reward?.total).toBe(1);
    expect(bought.state).toEqual({ p: "done" });
    expect(bought.page.text).toBe(
      "Thank you for shopping with us! [SEP] Your score (min 0.0, max 1.0) [SEP] 1.0",
    );
    // Without options: (1 + 0 + 1) / 4 = 0.5.
    expect((await go(item.state, "click[buy now]")).reward?.total).toBe(0.5);
  });

  it("invalid actions leave the page as it was; hostile queries search without error", async () => {
    const results = await go({ p: "start" }, "search[widget]");
    for (const bad of [
      "click[buy now]",
      "click[search]",
      "click[nothing here]",
      "Search[widget]",
      "jump",
      "search[]",
    ]) {
      const r = await go(results.state, bad);
      expect(r.valid).toBe(false);
      expect(r.state).toBe(results.state);
      expect(r.page.text).toBe(results.page.text);
    }
    expect((await go({ p: "start" }, "click[search]")).valid).toBe(false);
    for (const hostile of [
      'search["" OR NEAR(a b) * -x]',
      "search[AND OR NOT]",
      "search[***]",
      "search[😀 ünïcödé]",
    ]) {
      const r = await go({ p: "start" }, hostile);
      expect(r.valid).toBe(true);
      expect(r.page.text).toMatch(/Page 1 \(Total results: \d+\)/);
    }
    expect((await go({ p: "start" }, "search[***]")).page.text).toContain("(Total results: 0)");
  });

  it("fuzz: random walks over clickables and searches stay valid, and invalid commands change nothing", async () => {
    const step = fc.oneof(
      fc.nat(40).map((n) => ({ kind: "click" as const, n })),
      fc.constantFrom("widget", "lamp", "model 3", "", "***").map((q) => ({ kind: "search" as const, q })),
      fc.string({ maxLength: 20 }).map((junk) => ({ kind: "junk" as const, junk })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (walk) => {
        let state: PageState = { p: "start" };
        for (const s of walk) {
          if (state.p === "done") break;
          const before = await go(state, "noop");
          const clickable =
            before.page.clickables[s.kind === "click" ? s.n % Math.max(1, before.page.clickables.length) : 0];
          const command =
            s.kind === "search" ? `search[${s.q}]` : s.kind === "click" ? `click[${clickable}]` : s.junk;
          const r = await go(state, command);
          expect(PageState.safeParse(r.state).success).toBe(true);
          // Every clickable but the search button is an available action; anything invalid changes nothing.
          if (s.kind === "click" && clickable !== undefined && clickable !== "search")
            expect(r.valid).toBe(true);
          if (!r.valid) {
            expect(r.state).toBe(state);
            expect(r.page.text).toBe(before.page.text);
          }
          if (r.reward) expect(r.reward.total).toBeGreaterThanOrEqual(0);
          state = r.state;
        }
      }),
      { numRuns: 150 },
    );
  });
});
