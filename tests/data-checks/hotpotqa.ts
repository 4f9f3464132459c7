import { saveDataset } from "../../environments/data/datasets.js";
import { openLocalDb } from "../../environments/data/local-db.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { importHotpotqa, importHotpotqaHf } from "../../environments/search/importers.js";
import { searchHotpotqa } from "../../environments/search/index.js";
import { SearchTask } from "../../environments/search/task.js";

/** HotpotQA's two layouts: the official dev-distractor JSON and the Hugging Face one. */
export const HOTPOTQA_IMPORTERS = { official: importHotpotqa, hf: importHotpotqaHf } as const;

/**
 * The search expert on a HotpotQA file imported as `train`: it searches for each supporting passage not
 * yet shown whole (its title, else the title with the question or with the passage's opening), then
 * answers. `direct` counts the questions it answered right in at most one
 * step per supporting title plus the answer, i.e. when every search found its passage. Shared by the
 * tests (the committed slices) and `npm run check:data` (the whole files).
 */
export async function hotpotqaExpert(text: string, layout: keyof typeof HOTPOTQA_IMPORTERS, source: string) {
  const r = HOTPOTQA_IMPORTERS[layout](text, { split: "train", source });
  if (!r.ok) throw new Error(r.error);
  const tasks = r.value.tasks.filter((t) => t.split === "train").map((t) => SearchTask.parse(t.payload));
  const db = await openLocalDb(":memory:");
  try {
    const saved = await saveDataset(db, r.value);
    if (!saved.ok) throw new Error(saved.error);
    const rt = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const served = (await searchHotpotqa.manifest(rt)).splits.train ?? 0;
    let direct = 0;
    for (let index = 0; index < served; index++) {
      let { session } = await searchHotpotqa.startSession({ split: "train", index }, rt);
      const bound = new Set(tasks[index]?.supporting).size + 1;
      for (let steps = 1; ; steps++) {
        const { action } = await searchHotpotqa.expert(session, rt);
        const step = await searchHotpotqa.step({ session, action }, rt);
        session = step.session;
        if (step.done) {
          if (step.reward === 1 && steps <= bound) direct++;
          break;
        }
      }
    }
    return { questions: tasks.length, served, direct };
  } finally {
    db.close();
  }
}
