import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATA_ORIGINS, howToGet, SHARED_DATA_DIR } from "../../environments/data/data-origins.js";
import { calculatorExpertOnGsm8k, gsm8kAnnotations, gsm8kPrograms } from "./gsm8k.js";
import { hotpotqaExpert } from "./hotpotqa.js";
import { webshopExpert } from "./webshop.js";

/**
 * `npm run check:data [-- <dir>]`: the checks that need whole datasets, which the tests cannot carry
 * (they read small slices under tests/fixtures). Reads `<dir>/{gsm8k,hotpotqa,webshop}/`, by default
 * `../shared/data` beside the repository; a dataset whose files are absent is listed as missing.
 * Prints one JSON object; exits 0 when every check passed, 1 when one failed, 2 (one line on stderr)
 * when the folder or all of its datasets are missing.
 */

type Check = { name: string; pass: boolean; [measure: string]: unknown };

const ROOT = resolve(import.meta.dirname, "../..");
const args = process.argv.slice(2).filter((a) => a !== "--");
const usage = "usage: npm run check:data [-- <data folder>]   (default ../shared/data beside the repository)";
if (args.includes("--help") || args.includes("-h")) {
  console.log(usage);
  process.exit(0);
}
const stop = (line: string): never => {
  process.stderr.write(`check:data: ${line}\n`);
  process.exit(2);
};
if (args.length > 1 || args[0]?.startsWith("-")) stop(`unexpected arguments ${args.join(" ")}; ${usage}`);
const dir = args[0] === undefined ? resolve(ROOT, SHARED_DATA_DIR) : resolve(args[0]);
if (!existsSync(dir) || !statSync(dir).isDirectory())
  stop(
    `no data folder at ${dir}: name one (npm run check:data -- <dir>) holding gsm8k/, hotpotqa/ or webshop/; ` +
      Object.keys(DATA_ORIGINS)
        .map((d) => howToGet(d, dir))
        .join("; "),
  );

const present = (dataset: string) =>
  (DATA_ORIGINS[dataset]?.files ?? []).every((f) => existsSync(join(dir, dataset, f)));
const read = (dataset: string, file: string) => readFileSync(join(dir, dataset, file), "utf8");
const missing = Object.keys(DATA_ORIGINS)
  .filter((d) => !present(d))
  .map((d) => ({ dataset: d, howToGet: howToGet(d, dir) }));
if (missing.length === Object.keys(DATA_ORIGINS).length)
  stop(`${dir} holds none of the datasets: ${missing.map((m) => m.howToGet).join("; ")}`);

const checks: Check[] = [];
const t0 = performance.now();
if (present("gsm8k")) {
  const test = read("gsm8k", "test.jsonl");
  const expert = await calculatorExpertOnGsm8k(test);
  checks.push({
    name: "calculator-gsm8k expert on test.jsonl: reward 1 on at least 99%, no tool error or truncation",
    ...expert,
    rate: expert.solved / expert.problems,
    pass: expert.solved / expert.problems >= 0.99 && expert.toolErrors === 0 && expert.truncated === 0,
  });
  const annotations = gsm8kAnnotations([read("gsm8k", "train.jsonl"), test]);
  checks.push({
    name: "every <<expr=value>> annotation of train and test evaluates to its value under the calculator",
    total: annotations.total,
    nonNumeric: annotations.nonNumeric,
    failed: annotations.failed.slice(0, 20),
    disagree: annotations.disagree.slice(0, 20),
    pass: annotations.failed.length === 0 && annotations.disagree.length === 0,
  });
  const programs = await gsm8kPrograms(test);
  checks.push({
    name: "code-gsm8k reference programs on test.jsonl print the answer for at least 90%",
    ...programs,
    rate: programs.solved / programs.problems,
    pass: programs.solved / programs.problems >= 0.9,
  });
}
if (present("hotpotqa")) {
  const [official, hf] = DATA_ORIGINS.hotpotqa?.files ?? [];
  for (const [file, layout] of [
    [official, "official"],
    [hf, "hf"],
  ] as const) {
    if (file === undefined) continue;
    const r = await hotpotqaExpert(read("hotpotqa", file), layout, file);
    checks.push({
      name: `search-hotpotqa expert on ${file}: answers at least 95% after finding every supporting passage`,
      ...r,
      rate: r.direct / r.served,
      pass: r.served === r.questions && r.direct / r.served >= 0.95,
    });
  }
}
if (present("webshop")) {
  const r = await webshopExpert(
    read("webshop", "documents_100.jsonl"),
    read("webshop", "items_ins_v2_1000.json"),
  );
  checks.push({
    // The expert shops from the pages alone (webshop 1.2.0): 332 of 451 (0.736) when this bound was set.
    name: "webshop-real expert on every train goal of the 100-product sample: reward 1 on at least 70%",
    ...r,
    rate: r.bought / r.tried,
    pass: r.bought / r.tried >= 0.7,
  });
}
const failed = checks.filter((c) => !c.pass).length;
const seconds = Math.round((performance.now() - t0) / 1000);
console.log(
  JSON.stringify({ dir, passed: checks.length - failed, failed, missing, seconds, checks }, null, 2),
);
process.exit(failed > 0 ? 1 : 0);
