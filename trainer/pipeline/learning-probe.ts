/**
 * Learning probe: greedy success after SFT, after GRPO and after StepPO on calculator level 1, the
 * default recipe shortened (see `learning.ts`), one JSON line per phase.
 *
 *   npx tsx trainer/pipeline/learning-probe.ts [--backend wasm|cpu] [--iterations 20] [--split test|train] [--n 200] [--workers N] [--out DIR]
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptArgs } from "../../shared/script-args.js";
import { initBackend, isBackendName } from "../backend/backend.js";
import { BACKENDS } from "../backend/names.js";
import { DEFAULT_PROBE, learningProbe } from "./learning.js";

const USAGE = `Usage: npx tsx trainer/pipeline/learning-probe.ts [options]

Greedy success on calculator level 1 after SFT, after GRPO and after StepPO, one JSON line per phase.

Options:
  --backend <name>     tfjs backend: ${BACKENDS.join(", ")} (default wasm)
  --iterations <n>     RL iterations of each method (default ${DEFAULT_PROBE.iterations})
  --split <split>      the split scored after each phase: test or train (default ${DEFAULT_PROBE.split})
  --n <count>          tasks 0..n−1 of that split (default ${DEFAULT_PROBE.n})
  --workers <n>        threads of SFT and RL (default the recipes' own)
  --out <dir>          run folder (default a fresh temp folder)
  -h, --help           this text`;
const args = scriptArgs("learning-probe", USAGE, {
  backend: { type: "string", default: "wasm" },
  iterations: { type: "string", default: String(DEFAULT_PROBE.iterations) },
  split: { type: "string", default: DEFAULT_PROBE.split },
  n: { type: "string", default: String(DEFAULT_PROBE.n) },
  workers: { type: "string" },
  out: { type: "string" },
});
const { values } = args;
const backendName = isBackendName(values.backend)
  ? values.backend
  : args.fail(`unknown backend ${values.backend}`);
const probe = {
  iterations: args.number("iterations"),
  split: values.split,
  n: args.number("n"),
  ...(values.workers === undefined ? {} : { workers: args.number("workers") }),
};
const backend = await initBackend(backendName);
if (!backend.ok) {
  process.stderr.write(`learning-probe: ${backend.error}\n`);
  process.exit(1);
}
const result = await learningProbe(
  {
    ...probe,
    out: values.out ?? (await mkdtemp(join(tmpdir(), "edgegym-probe-"))),
  },
  (p) => process.stdout.write(`${JSON.stringify({ backend: backend.value.name, ...p })}\n`),
);
if (!result.ok) {
  process.stderr.write(`learning-probe: ${result.error}\n`);
  process.exitCode = 1;
}
