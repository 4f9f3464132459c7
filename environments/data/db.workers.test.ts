import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countTasks, datasetHash, getTask, saveDataset } from "./datasets.js";
import { envDb } from "./db.js";

describe("the data layer on real D1 inside workerd", () => {
  it("finds the D1 binding DB, caches one drizzle instance, and round-trips a dataset", async () => {
    const db = envDb({ bindings: { DB: env.DB, EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY } });
    if (db === undefined) throw new Error("envDb found no D1 binding");
    // A second bindings object holding the same D1 binding gets the same drizzle instance.
    expect(envDb({ bindings: { DB: env.DB } })).toBe(db);

    // 60 train tasks: three INSERTs of at most 25 rows (4 columns × 25 = 100 bound parameters, D1's cap).
    const tasks = Array.from({ length: 60 }, (_, i) => ({
      split: "train",
      payload: { q: `q${i}`, a: i * 2 },
    }));
    const saved = await saveDataset(db, {
      name: "toy",
      tasks: [...tasks, { split: "test", payload: { q: "t" } }],
    });
    expect(saved).toEqual({ ok: true, value: { name: "toy", counts: { train: 60, test: 1 } } });
    expect(await countTasks(db, "toy", "train")).toBe(60);
    expect(await getTask(db, "toy", "train", 59)).toEqual({ q: "q59", a: 118 });
    expect(await getTask(db, "toy", "test", 1)).toBeUndefined();

    const before = await datasetHash(db, "toy");
    await saveDataset(db, { name: "toy", tasks: tasks.slice(0, 10) });
    expect(await countTasks(db, "toy", "train")).toBe(10);
    expect(await countTasks(db, "toy", "test")).toBe(1);
    expect(await datasetHash(db, "toy")).not.toBe(before);
    const rows = await env.DB.prepare("select count(*) as n from dataset_tasks where dataset = 'toy'").first<{
      n: number;
    }>();
    expect(rows?.n).toBe(11);
  });
});
