import { describe, expect, it } from "vitest";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import { findBuiltin, findBuiltinAt, findBuiltinTasksOf } from "../builtin.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { builtinSource } from "./catalog.js";
import { builtinCatalog, WEBSHOP_LEVEL_CATALOG } from "./generator.js";
import { type Goal, goalOptionValues } from "./goal.js";
import { createWebshop } from "./index.js";
import { priceTag } from "./product.js";

const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") } };
// webshop-l1 since 3.0.0: instructions that name the type, 50 results a search shown 5 a page.
const source = builtinSource(WEBSHOP_LEVEL_CATALOG[1]?.size ?? 0, 1, "type", 50);
const store = await source.store(runtime);
const l1 = createWebshop({ level: 1 });

/** The products a search for goal `index`'s instruction finds, best first, as level 1 opens on them. */
async function opened(split: string, index: number) {
  const goal = (await source.tasks.get(split, index, runtime)) as Goal;
  const hits = await store.search(goal.instruction.toLowerCase());
  if (!hits.ok) throw new Error(hits.error);
  const shown = await store.products(hits.value);
  if (!shown.ok) throw new Error(shown.error);
  return { goal, shown: shown.value.map((s) => s.product) };
}

/** The command of the expert's one tool call. */
function command(content: string): unknown {
  const call = parseHermesCalls(content)[0];
  return call?.ok ? (call.arguments as { command?: unknown }).command : undefined;
}

describe("webshop level 1", () => {
  it("opens on the results of a search for the instruction, numbered 1 to 5, and click[k] opens the k-th", async () => {
    const { goal, shown } = await opened("train", 0);
    expect(shown).toHaveLength(50);
    const started = await l1.startSession({ split: "train", index: 0 }, runtime);
    const page = started.observation.messages.at(-1)?.content;
    // The results page of WebShop's text mode, with ranks where the product ids were, 5 a page.
    const listed = (from: number) =>
      shown
        .slice(from, from + 5)
        .flatMap((p, k) => [String(from + k + 1), p.title, priceTag(p.pricing)])
        .join(" [SEP] ");
    expect(page).toBe(
      `Instruction: [SEP] ${goal.instruction} [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] ${listed(0)}`,
    );
    // The next page lists the 6th to 10th, numbered on; a search from there also shows 5 a page.
    const next = await l1.step({ session: started.session, action: { content: "click[next >]" } }, runtime);
    expect(next.observation.messages.at(-1)?.content).toContain(
      `Instruction: [SEP] ${goal.instruction} [SEP] Back to Search [SEP] Page 2 (Total results: 50) [SEP] < Prev [SEP] Next > [SEP] ${listed(5)}\n`,
    );
    const sixth = await l1.step({ session: next.session, action: { content: "click[6]" } }, runtime);
    expect(sixth.observation.messages.at(-1)?.content).toContain(` [SEP] ${shown[5]?.title} [SEP] Price: `);
    const home = await l1.step(
      { session: sixth.session, action: { content: "click[back to search]" } },
      runtime,
    );
    const again = await l1.step(
      { session: home.session, action: { content: `search[${goal.instruction}]` } },
      runtime,
    );
    expect(again.observation.messages.at(-1)?.content).toContain(`${page}\n`);
    for (const k of [1, 3, 5]) {
      const r = await l1.step({ session: started.session, action: { content: `click[${k}]` } }, runtime);
      expect(r.info.valid_action).toBe(true);
      expect(r.observation.messages.at(-1)?.content).toContain(` [SEP] ${shown[k - 1]?.title} [SEP] Price: `);
    }
    // A product's own id is not a button here, nor is a rank past the page.
    for (const id of [shown[0]?.asin ?? "", "6", "0"]) {
      const r = await l1.step({ session: started.session, action: { content: `click[${id}]` } }, runtime);
      expect(r.info.valid_action, id).toBe(false);
    }
  });

  it("has its expert open, by its number, a result priced under the bound with the goal's options, or read the next page", async () => {
    let later = 0;
    let paged = 0;
    for (let i = 0; i < 20; i++) {
      const { goal, shown } = await opened("train", i);
      const { session } = await l1.startSession({ split: "train", index: i }, runtime);
      const first = String(command((await l1.expert(session, runtime)).action.content ?? ""));
      const clicked = /^click\[(\d)\]$/.exec(first);
      if (clicked === null) {
        // No result on the page fits: the next page (then, after the 20th result, a new search).
        expect(first, `train ${i}`).toBe("click[next >]");
        paged++;
        continue;
      }
      const k = Number(clicked[1]) - 1;
      const p = shown[k];
      expect(p, `train ${i}`).toBeDefined();
      expect(p?.pricing.at(-1) ?? 100, `train ${i}`).toBeLessThanOrEqual(goal.priceUpper);
      const offered = new Set(
        Object.values(p?.options ?? {})
          .flat()
          .map(String),
      );
      expect(
        goalOptionValues(goal).every((v) => offered.has(v)),
        `train ${i}`,
      ).toBe(true);
      if (k > 0) later++;
    }
    // The choice depends on the page: not always the first result, and sometimes none of them.
    expect(later).toBeGreaterThan(0);
    expect(paged).toBeGreaterThan(0);
  });

  it("lists an item's option values in an order drawn per instruction; click[<option>: <value>] chooses one, and the expert clicks the goal's as the instruction writes it", async () => {
    let checked = 0;
    let reordered = 0;
    for (let i = 0; i < 30; i++) {
      const { goal, shown } = await opened("train", i);
      const [name, values = []] = Object.entries(shown[0]?.options ?? {})[0] ?? [];
      const wanted = goalOptionValues(goal).find((v) => values.includes(v));
      if (name === undefined || values.length < 2 || wanted === undefined) continue;
      // The instruction names the value as the button does.
      expect(goal.instruction).toContain(`${name}: ${wanted}`);
      const started = await l1.startSession({ split: "train", index: i }, runtime);
      const item = await l1.step({ session: started.session, action: { content: "click[1]" } }, runtime);
      const text = item.observation.messages.at(-1)?.content ?? "";
      // WebShop lists an option's name, then its values, with no letters since 1.7.0.
      const listed =
        text.split(` [SEP] < Prev [SEP] ${name} [SEP] `)[1]?.split(" [SEP] ").slice(0, values.length) ?? [];
      expect([...listed].sort()).toEqual([...values].sort());
      if (listed.some((v, k) => v !== values[k])) reordered++;

      // The order holds for the episode: the page shown again lists the values as before.
      const back = await l1.step({ session: item.session, action: { content: "click[< prev]" } }, runtime);
      const again = await l1.step({ session: back.session, action: { content: "click[1]" } }, runtime);
      expect(again.observation.messages.at(-1)?.content).toBe(text);

      const second = await l1.step(
        { session: item.session, action: { content: `click[${name}: ${listed[1]}]` } },
        runtime,
      );
      expect(second.info.valid_action).toBe(true);
      expect(second.observation.messages.at(-1)?.content).toContain(` [SEP] Chosen: ${listed[1]}\n`);
      // Neither a letter nor the bare value is a button here.
      for (const id of ["b", listed[1] ?? ""]) {
        const r = await l1.step({ session: item.session, action: { content: `click[${id}]` } }, runtime);
        expect(r.info.valid_action, id).toBe(false);
      }

      const expert = command((await l1.expert(item.session, runtime)).action.content ?? "");
      expect(expert).toBe(`click[${name}: ${wanted}]`);
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
    // Not the product's own order (sizes small to large, say), which a policy could learn instead of reading.
    expect(reordered).toBeGreaterThan(0);
  });

  it("leaves level 2 as it was: it opens on the search page and names products by their ids", async () => {
    const l2 = createWebshop({ level: 2 });
    const started = await l2.startSession({ split: "train", index: 0 }, runtime);
    expect(started.observation.messages.at(-1)?.content).toMatch(
      /^WebShop \[SEP\] Instruction: \[SEP\] .* \[SEP\] Search$/,
    );
    const { action } = await l2.expert(started.session, runtime);
    expect(command(action.content ?? "")).toMatch(/^search\[/);
  });

  it("keeps 1.8.0 (300 products) for recorded runs: its test pages come from the 300, and today's from 3,000", async () => {
    const archived = findBuiltinAt("webshop-l1", "1.8.0");
    expect(archived?.version).toBe("1.8.0");
    expect(findBuiltinAt("webshop-l1", "3.0.0")).toBe(findBuiltin("webshop-l1"));
    // 2.0.0, whose instructions named the kind's query, is kept for its recorded runs too.
    expect(findBuiltinAt("webshop-l1", "2.0.0")?.version).toBe("2.0.0");
    expect(findBuiltinTasksOf("webshop-l1", "2.0.0")).not.toBe(findBuiltin("webshop-l1"));
    expect(findBuiltinAt("webshop-l1", "1.7.0")).toBeUndefined();
    expect(findBuiltinTasksOf("webshop-l1", "1.5.0")).toBe(archived);
    // Test products are every tenth: 30 of the 300, 300 of the 3,000 (index ≡ 0 mod 10 either way).
    const titles = (size: number) =>
      new Set(
        builtinCatalog(size, 0, 1, "word")
          .filter((_, i) => i % 10 === 0)
          .map((p) => p.title),
      );
    const [small, large] = [titles(300), titles(3000)];
    const products = async (env: typeof l1) => {
      const seen = new Set<string>();
      for (let index = 0; index < 40; index++) {
        const started = await env.startSession({ split: "test", index }, runtime);
        const page = started.observation.messages.at(-1)?.content ?? "";
        // Each task's product is on its results page; collect the test products shown.
        for (const t of [...large].filter((t) => page.includes(t))) seen.add(t);
      }
      return seen;
    };
    if (!archived) throw new Error("no archived webshop-l1 1.8.0");
    const before = await products(archived);
    expect(before.size).toBeGreaterThan(0);
    expect([...before].every((t) => small.has(t))).toBe(true);
    expect([...(await products(l1))].some((t) => !small.has(t))).toBe(true);
  });
});
