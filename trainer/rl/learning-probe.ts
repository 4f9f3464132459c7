/**
 * Learning probe: prints greedy test success after SFT, after GRPO and after StepPO on the tiny
 * `lookup` task, one JSON line per phase (see `learning.ts`).
 *
 *   npx tsx trainer/rl/learning-probe.ts [--backend wasm|cpu] [--sft 250] [--sft-lr 5e-3] [--iterations 100] [--lr 1e-3] [--epochs 2] [--negative-weight 0.25]
 */
import { parseArgs } from "node:util";
import { initBackend, isBackendName } from "../backend/backend.js";
import { DEFAULT_PROBE, learningProbe } from "./learning.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "wasm" },
    sft: { type: "string", default: String(DEFAULT_PROBE.sftSteps) },
    "sft-lr": { type: "string", default: String(DEFAULT_PROBE.sftLr) },
    iterations: { type: "string", default: String(DEFAULT_PROBE.iterations) },
    lr: { type: "string", default: String(DEFAULT_PROBE.lr) },
    epochs: { type: "string", default: String(DEFAULT_PROBE.ppoEpochs) },
    "negative-weight": { type: "string", default: String(DEFAULT_PROBE.negativeAdvantageWeight) },
  },
});
const name = values.backend ?? "wasm";
const backend = await initBackend(isBackendName(name) ? name : undefined);
if (!backend.ok) {
  process.stderr.write(`learning-probe: ${backend.error}\n`);
  process.exit(1);
}
await learningProbe(
  {
    sftSteps: Number(values.sft),
    sftLr: Number(values["sft-lr"]),
    iterations: Number(values.iterations),
    lr: Number(values.lr),
    ppoEpochs: Number(values.epochs),
    negativeAdvantageWeight: Number(values["negative-weight"]),
  },
  (p) => process.stdout.write(`${JSON.stringify({ backend: backend.value.name, ...p })}\n`),
);
