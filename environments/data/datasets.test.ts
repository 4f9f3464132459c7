import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { datasets } from "../../shared/db/schema.js";
import { countTasks, datasetHash, datasetWrites, getTask, saveDataset } from "./datasets.js";
import { type LocalDb, openLocalDb } from "./local-db.js";

let db: LocalDb;
beforeEach(async () => {
  db = await openLocalDb(":memory:");
});
afterEach(() => db.close());

const tasks = (split: string, n: number, tag = "") =>
  Array.from({ length: n }, (_, i) => ({ split, payload: { q: `${split}${tag}-${i}`, a: i } }));

describe("datasets on real SQLite (libsql)", () => {
  it("reports nothing for a dataset that was never imported", async () => {
    expect(await datasetHash(db, "toy")).toBeUndefined();
    expect(await countTasks(db, "toy", "train")).toBe(0);
    expect(await getTask(db, "toy", "train", 0)).toBeUndefined();
  });

  it("stores tasks in order per split, in more than one INSERT chunk", async () => {
    // 60 train tasks need three INSERTs of at most 25 rows (25 + 25 + 10).
    const saved = await saveDataset(db, { name: "toy", tasks: [...tasks("train", 60), ...tasks("test", 3)] });
    expect(saved).toEqual({ ok: true, value: { name: "toy", counts: { train: 60, test: 3 } } });
    expect(await countTasks(db, "toy", "train")).toBe(60);
    expect(await countTasks(db, "toy", "test")).toBe(3);
    expect(await getTask(db, "toy", "train", 59)).toEqual({ q: "train-59", a: 59 });
    expect(await getTask(db, "toy", "test", 2)).toEqual({ q: "test-2", a: 2 });
    expect(await getTask(db, "toy", "test", 3)).toBeUndefined();
    expect(await getTask(db, "toy", "dev", 0)).toBeUndefined();
  });

  it("chunks large payloads under the statement size limit", async () => {
    const big = "x".repeat(40_000);
    const saved = await saveDataset(db, {
      name: "big",
      tasks: [0, 1, 2].map((i) => ({ split: "train", payload: { big, i } })),
    });
    expect(saved.ok).toBe(true);
    expect(await getTask(db, "big", "train", 2)).toEqual({ big, i: 2 });
  });

  it("replaces only the imported split and keeps the others; the hash follows the data", async () => {
    await saveDataset(db, { name: "toy", tasks: [...tasks("train", 5), ...tasks("test", 2)] });
    const first = await datasetHash(db, "toy");
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);

    await saveDataset(db, { name: "toy", tasks: tasks("train", 3, "v2") });
    expect(await countTasks(db, "toy", "train")).toBe(3);
    expect(await countTasks(db, "toy", "test")).toBe(2);
    expect(await getTask(db, "toy", "train", 0)).toEqual({ q: "trainv2-0", a: 0 });
    expect(await getTask(db, "toy", "train", 4)).toBeUndefined();
    const second = await datasetHash(db, "toy");
    expect(second).not.toBe(first);

    // Re-importing the original train split restores the original identity.
    await saveDataset(db, { name: "toy", tasks: tasks("train", 5) });
    expect(await datasetHash(db, "toy")).toBe(first);
  });

  it("keeps datasets apart and mixes the source hash into the identity", async () => {
    await saveDataset(db, { name: "a", tasks: tasks("train", 2) });
    await saveDataset(db, { name: "b", tasks: tasks("train", 2), hash: "release-2" });
    expect(await datasetHash(db, "a")).not.toBe(await datasetHash(db, "b"));
    await saveDataset(db, { name: "a", tasks: tasks("train", 1) });
    expect(await countTasks(db, "b", "train")).toBe(2);
  });

  it("refuses an empty dataset and leaves the stored one untouched", async () => {
    await saveDataset(db, { name: "toy", tasks: tasks("train", 2) });
    expect(await saveDataset(db, { name: "toy", tasks: [] })).toEqual({
      ok: false,
      error: 'dataset "toy" has no tasks',
    });
    expect(await countTasks(db, "toy", "train")).toBe(2);
  });

  it("is atomic: a batch that fails at its last statement leaves the previous data", async () => {
    await saveDataset(db, { name: "toy", tasks: tasks("train", 30) });
    const before = await datasetHash(db, "toy");
    const { statements } = await datasetWrites(db, { name: "toy", tasks: tasks("train", 40, "v2") });
    // The same dataset row twice violates its primary key after every delete and insert has run.
    const duplicate = db.insert(datasets).values({ name: "toy", hash: "x", importedAt: new Date(0) });
    await expect(db.batch([...statements, duplicate])).rejects.toThrow();
    expect(await countTasks(db, "toy", "train")).toBe(30);
    expect(await getTask(db, "toy", "train", 0)).toEqual({ q: "train-0", a: 0 });
    expect(await datasetHash(db, "toy")).toBe(before);
  });
});
