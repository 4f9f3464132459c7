import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { readFixture } from "../../../tests/fixtures/read-fixture.js";
import { importHotpotqa } from "../../search/importers.js";
import { CorpusChunk, SearchTask } from "../../search/task.js";

/** The fixture this example's corpus is made from (tests/fixtures/hotpotqa, CC BY-SA 4.0). */
export const SOURCE = "hotpot_dev_distractor_v1_first20.json";

/**
 * corpus.json's contents: the fixture's 20 questions and the union of their context paragraphs, as
 * the search env's importer reads them. An env's data ships in its bundle as a JSON module, so it
 * is prepared once, here, rather than parsed from the upstream format on every cold start.
 */
export function buildCorpus(): { source: string; tasks: SearchTask[]; passages: CorpusChunk["passages"] } {
  const imported = importHotpotqa(readFixture("hotpotqa", SOURCE), { split: "train", source: SOURCE });
  if (!imported.ok) throw new Error(imported.error);
  const rows = imported.value.tasks;
  return {
    source: `tests/fixtures/hotpotqa/${SOURCE}`,
    tasks: rows.filter((r) => r.split === "train").map((r) => SearchTask.parse(r.payload)),
    passages: rows.filter((r) => r.split !== "train").flatMap((r) => CorpusChunk.parse(r.payload).passages),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(new URL("./corpus.json", import.meta.url), `${JSON.stringify(buildCorpus())}\n`);
}
