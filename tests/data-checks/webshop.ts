import { saveDataset } from "../../environments/data/datasets.js";
import { type LocalDb, openLocalDb } from "../../environments/data/local-db.js";
import { type Environment, generateSecrets } from "../../environments/kit/index.js";
import { importWebshopAnnotations, importWebshopProducts } from "../../environments/webshop/importers.js";
import { createWebshopReal } from "../../environments/webshop/index.js";

/** Imports a WebShop products file and an items_ins annotations file into `db`, as `npm run data` does. */
export async function importWebshopSample(db: LocalDb, documents: string, annotations: string) {
  for (const r of [importWebshopProducts(documents), importWebshopAnnotations(annotations)]) {
    if (!r.ok) throw new Error(r.error);
    const saved = await saveDataset(db, r.value);
    if (!saved.ok) throw new Error(saved.error);
  }
}

/** One expert episode; its last step (the purchase, or the step the limit cut). */
export async function playWebshop(
  env: Environment,
  runtime: { bindings: Record<string, unknown> },
  split: string,
  index: number,
) {
  let { session } = await env.startSession({ split, index }, runtime);
  for (;;) {
    const { action } = await env.expert(session, runtime);
    const r = await env.step({ session, action }, runtime);
    if (r.done) return r;
    session = r.session;
  }
}

/**
 * `webshop-real` (synthetic goals from items_ins) on an imported sample: its splits, and the expert's
 * purchases with reward 1 over every `every`-th train goal. Shared by the tests (the committed slice)
 * and `npm run check:data` (the 100-product sample).
 */
export async function webshopExpert(documents: string, annotations: string, every = 1) {
  const db = await openLocalDb(":memory:");
  try {
    await importWebshopSample(db, documents, annotations);
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const env = createWebshopReal();
    const { splits } = await env.manifest(runtime);
    let tried = 0;
    let bought = 0;
    for (let i = 0; i < (splits.train ?? 0); i += every) {
      tried++;
      if ((await playWebshop(env, runtime, "train", i)).reward === 1) bought++;
    }
    return { splits, tried, bought };
  } finally {
    db.close();
  }
}
