import { expect, it } from "vitest";
import { describeConformance, expectProblem } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { saveDataset } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { importHotpotqa, importHotpotqaHf } from "./importers.js";
import { search, searchHotpotqa } from "./index.js";

/** Fresh secrets plus a local SQLite database, as `npm run envs` binds them (the db is not a string). */
async function withDb() {
  const db = await openLocalDb(":memory:");
  const bindings = { ...(await generateSecrets()), EDGEGYM_DB: db };
  return { db, secrets: bindings as unknown as Record<string, string> };
}

/** The target, closing the database after the server. */
function withClose<T extends { close?: () => Promise<void> | void }>(target: T, db: { close(): void }): T {
  return {
    ...target,
    close: async () => {
      await target.close?.();
      db.close();
    },
  };
}

describeConformance("search on Node, FTS5 in local SQLite", async () => {
  const { db, secrets } = await withDb();
  const target = await serveOnNode([search], { secrets });
  return withClose(target, db);
});

describeConformance("search on Node, no database (in-memory BM25)", () => serveOnNode([search]));

describeConformance("search-hotpotqa on Node, the HotpotQA slices imported", async () => {
  const { db, secrets } = await withDb();
  for (const [file, importer, split] of [
    ["hotpot_dev_distractor_v1_first20.json", importHotpotqa, "train"],
    ["hotpot_dev_distractor_hf_format_54to73.json", importHotpotqaHf, "test"],
  ] as const) {
    const r = importer(readFixture("hotpotqa", file), { split, source: file });
    if (!r.ok) throw new Error(r.error);
    await saveDataset(db, r.value);
  }
  const target = await serveOnNode([searchHotpotqa], { secrets });
  return withClose(target, db);
});

it("search-hotpotqa before any import: 404 dataset_not_imported naming the import command, over HTTP", async () => {
  const { db, secrets } = await withDb();
  const target = await serveOnNode([searchHotpotqa], { secrets });
  try {
    const manifest = (await (await fetch(`${target.baseUrl}/v1/manifest`)).json()) as { splits: unknown };
    expect(manifest.splits).toEqual({ train: 0, test: 0 });
    const res = await fetch(`${target.baseUrl}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ split: "train" }),
    });
    const problem = await expectProblem(res, "dataset_not_imported");
    expect(problem.detail).toContain("npm run data -- import hotpotqa");
  } finally {
    await target.close?.();
    db.close();
  }
});
