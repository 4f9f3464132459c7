/**
 * Learning probe: greedy success after SFT, after GRPO and after StepPO on calculator level 1, the
 * default recipe shortened (see `learning.ts`), one JSON line per phase.
 *
 *   npx tsx trainer/rl/learning-probe.ts [--backend wasm|cpu] [--iterations 20] [--split test|train] [--n 200] [--workers N] [--out DIR]
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { initBackend, isBackendName } from "../backend/backend.js";
import { DEFAULT_PROBE, learningProbe } from "./learning.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "wasm" },
    iterations: { type: "string", default: String(DEFAULT_PROBE.iterations) },
    split: { type: "string", default: DEFAULT_PROBE.split },
    n: { type: "string", default: String(DEFAULT_PROBE.n) },
    workers: { type: "string" },
    out: { type: "string" },
  },
});
const name = values.backend ?? "wasm";
const backend = await initBackend(isBackendName(name) ? name : undefined);
if (!backend.ok) {
  process.stderr.write(`learning-probe: ${backend.error}\n`);
  process.exit(1);
}
const result = await learningProbe(
  {
    iterations: Number(values.iterations),
    split: values.split ?? DEFAULT_PROBE.split,
    n: Number(values.n),
    ...(values.workers === undefined ? {} : { workers: Number(values.workers) }),
    out: values.out ?? (await mkdtemp(join(tmpdir(), "edgegym-probe-"))),
  },
  (p) => process.stdout.write(`${JSON.stringify({ backend: backend.value.name, ...p })}\n`),
);
if (!result.ok) {
  process.stderr.write(`learning-probe: ${result.error}\n`);
  process.exitCode = 1;
}
