import { describe, expect, it } from "vitest";
import { builtinCatalog } from "../../environments/webshop/generator.js";
import { distinctTasks, taskClusters } from "./distinct-tasks.js";

describe("distinct tasks", () => {
  it("counts distinct first observations: one task index twice is one task", async () => {
    const d = await distinctTasks("local:calculator", "test", [0, 1, 0]);
    if (!d.ok) throw new Error(d.error);
    const { keys, ...count } = d.value;
    expect(count).toEqual({ distinct: 2, n: 3 });
    // A key per index, in order: indices 0 and 2 are the same task, 1 another.
    expect(keys).toHaveLength(3);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it("counts how many of them also occur among the first train tasks", async () => {
    // Train tasks 0 and 1 are among train tasks 0..2; task 5 is not.
    const d = await distinctTasks("local:calculator", "train", [0, 1, 5], 3);
    if (!d.ok) throw new Error(d.error);
    const { keys: _keys, ...count } = d.value;
    expect(count).toEqual({ distinct: 3, n: 3, inTrain: { checked: 3, count: 2 } });
  });

  it("says why when the env cannot be played", async () => {
    const d = await distinctTasks("local:no-such-env", "test", [0]);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toContain("no-such-env");
  });

  it("clusters webshop tasks by product, and tasks of an env that declares no cluster not at all", async () => {
    // Webshop-l1 1.8.0 (archived) has 300 products and holds every tenth out for test (index ≡ 0
    // mod 10): 300 / 10 = 30 test products, so its 500 test tasks fall on at most 30 clusters.
    const testProducts = new Set(
      builtinCatalog(300, 0, 1, "word")
        .filter((_, i) => i % 10 === 0)
        .map((p) => p.asin),
    );
    expect(testProducts.size).toBe(30);
    const c = await taskClusters(
      "local:webshop-l1@1.8.0",
      "test",
      Array.from({ length: 500 }, (_, i) => i),
    );
    if (!c.ok) throw new Error(c.error);
    expect(c.value?.unit).toBe("products");
    expect(c.value?.keys).toHaveLength(500);
    const products = new Set(c.value?.keys);
    expect([...products].every((p) => testProducts.has(p))).toBe(true);
    // Far fewer clusters than tasks: that is what the paired standard error must account for.
    const tasks = await distinctTasks(
      "local:webshop-l1@1.8.0",
      "test",
      Array.from({ length: 500 }, (_, i) => i),
    );
    if (!tasks.ok) throw new Error(tasks.error);
    expect(products.size).toBeLessThan(tasks.value.distinct);

    const none = await taskClusters("local:calculator", "test", [0, 1]);
    expect(none).toEqual({ ok: true, value: undefined });
    const missing = await taskClusters("local:no-such-env", "test", [0]);
    expect(missing.ok).toBe(false);
  });
});
