import { describeConformance } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { saveDataset } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { importGsm8k } from "./gsm8k.js";
import { calculatorGsm8k } from "./index.js";

describeConformance("calculator-gsm8k on Node, the GSM8K slices imported into local SQLite", async () => {
  const db = await openLocalDb(":memory:");
  for (const split of ["train", "test"]) {
    const r = importGsm8k(readFixture("gsm8k", `${split}.jsonl`), { split });
    if (!r.ok) throw new Error(r.error);
    await saveDataset(db, r.value);
  }
  // `npm run envs` binds the database object itself; the conformance target types bindings as strings.
  const secrets = { ...(await generateSecrets()), EDGEGYM_DB: db } as unknown as Record<string, string>;
  const target = await serveOnNode([calculatorGsm8k], { secrets });
  return {
    ...target,
    close: async () => {
      await target.close?.();
      db.close();
    },
  };
});
