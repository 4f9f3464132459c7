import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describeConformance } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { saveDataset } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { importGsm8k } from "./gsm8k.js";
import { calculatorGsm8k } from "./index.js";

const GSM8K_DIR = fileURLToPath(new URL("../../../shared/data/gsm8k/", import.meta.url));

describeConformance("calculator-gsm8k on Node, GSM8K train and test imported into local SQLite", async () => {
  if (!existsSync(GSM8K_DIR)) {
    throw new Error(
      `the GSM8K sample is missing: expected ${GSM8K_DIR} (the ../shared/data folder beside the repo)`,
    );
  }
  const db = await openLocalDb(":memory:");
  for (const split of ["train", "test"]) {
    const r = importGsm8k(readFileSync(`${GSM8K_DIR}${split}.jsonl`, "utf8"), { split });
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
