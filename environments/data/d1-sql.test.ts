import { describe, expect, it } from "vitest";
import { renderSqlScript } from "./d1-sql.js";
import { countTasks, datasetHash, datasetWrites, getTask, saveDataset } from "./datasets.js";
import { openLocalDb } from "./local-db.js";

describe("rendering dataset writes as a SQL script", () => {
  it("produces a script that stores exactly what saveDataset stores, quotes included", async () => {
    const tasks = [
      { split: "train", payload: { q: 'Ann\'s 3 "pens"; DROP TABLE x; -- ?', a: 1.5 } },
      { split: "train", payload: { q: "unicode ünïcödé ✓ and a newline\nhere", a: -2 } },
      { split: "test", payload: { q: "what's 2?", a: 2 } },
    ];
    const direct = await openLocalDb(":memory:");
    const scripted = await openLocalDb(":memory:");
    await saveDataset(direct, { name: "toy", tasks });
    const { statements } = await datasetWrites(scripted, { name: "toy", tasks });
    const script = renderSqlScript(statements);
    if (!script.ok) throw new Error(script.error);
    expect(script.value).not.toContain("?,");
    await scripted.$client.executeMultiple(script.value);

    for (const db of [direct, scripted]) {
      expect(await countTasks(db, "toy", "train")).toBe(2);
      expect(await getTask(db, "toy", "train", 0)).toEqual(tasks[0]?.payload);
      expect(await getTask(db, "toy", "train", 1)).toEqual(tasks[1]?.payload);
      expect(await getTask(db, "toy", "test", 0)).toEqual(tasks[2]?.payload);
    }
    expect(await datasetHash(scripted, "toy")).toBe(await datasetHash(direct, "toy"));
    direct.close();
    scripted.close();
  });

  it("refuses parameters it cannot write and mismatched placeholders", () => {
    expect(renderSqlScript([{ toSQL: () => ({ sql: "select ?", params: [{}] }) }])).toEqual({
      ok: false,
      error: "cannot write object as a SQL literal",
    });
    expect(renderSqlScript([{ toSQL: () => ({ sql: "select ?, ?", params: [1] }) }]).ok).toBe(false);
  });
});
