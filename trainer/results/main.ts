import { readFile } from "node:fs/promises";
import { scriptArgs } from "../../shared/script-args.js";

/** `npm run results`: the flags, then `writeResults` (doc.ts), loaded only then so that --help and a mistake answer at once. */
const USAGE = `Usage: npm run results -- [options]

Writes docs/results.md from the run folders npm start left, plus the expert measured now on each env.

Options:
  --runs <dir>     a folder of run folders; repeat for several (default runs)
  --n <count>      train tasks the expert plays per env (default 50)
  --out <file>     the markdown written; plots go to results/ beside it (default docs/results.md)
  --notes <file>   a markdown file, the page's Notes section (npm run results passes docs/results/notes.md)
  -h, --help       this text`;
const args = scriptArgs("results", USAGE, {
  runs: { type: "string", multiple: true, default: ["runs"] },
  n: { type: "string", default: "50" },
  out: { type: "string", default: "docs/results.md" },
  notes: { type: "string" },
});
const { values } = args;
const n = args.number("n");
const notes =
  values.notes === undefined ? undefined : await readFile(values.notes, "utf8").catch(() => undefined);
if (values.notes !== undefined && notes === undefined) args.fail(`--notes: cannot read ${values.notes}`);
const { writeResults } = await import("./doc.js");
const count = await writeResults({
  runs: values.runs,
  n,
  out: values.out,
  ...(notes === undefined ? {} : { notes }),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stderr.write(`results: wrote ${values.out} (${count} runs)\n`);
