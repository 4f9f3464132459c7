/**
 * Learning probe: SFT on expert demos of the tiny `lookup` task, then GRPO and StepPO from that SFT
 * policy, each scored by greedy success on 50 test tasks. Prints one JSON line per phase.
 *
 *   npx tsx trainer/train/learning-probe.ts [--backend wasm|cpu] [--sft 300] [--iterations 30] [--lr 2e-3] [--epochs 2]
 */
import { parseArgs } from "node:util";
import * as tf from "@tensorflow/tfjs-core";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { initBackend } from "../backend/backend.js";
import { EnvClient } from "../client/env-client.js";
import { localTransport } from "../client/transport.js";
import { createModel } from "../model/create-model.js";
import { isBackendName, type PolicyModel } from "../policy/index.js";
import { collectDemos } from "../rollout/demos.js";
import { runRollouts } from "../rollout/loop.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import { lookupEnv } from "./lookup-env.js";
import { rlUpdate } from "./rl-update.js";
import { frozenCopy, sampleTasks } from "./session.js";
import { sftUpdate } from "./sft-run.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "wasm" },
    sft: { type: "string", default: "300" },
    iterations: { type: "string", default: "30" },
    lr: { type: "string", default: "2e-3" },
    epochs: { type: "string", default: "2" },
  },
});
const backendName = values.backend ?? "wasm";
const backend = await initBackend(isBackendName(backendName) ? backendName : undefined);
if (!backend.ok) {
  process.stderr.write(`learning-probe: ${backend.error}\n`);
  process.exit(1);
}
const tokenizer = new ByteTokenizer();
const client = new EnvClient(
  localTransport(createEnvironmentsHost([lookupEnv]), "/envs/lookup", await generateSecrets()),
);
const t0 = performance.now();
const report = (fields: Record<string, unknown>) =>
  process.stdout.write(
    `${JSON.stringify({ backend: backend.value.name, ...fields, seconds: (performance.now() - t0) / 1000 })}\n`,
  );

const rollout = (
  model: PolicyModel,
  split: string,
  tasks: number[],
  groupSize: number,
  temperature: number,
) =>
  runRollouts(model, tokenizer, client, {
    split,
    tasks,
    groupSize,
    maxLive: 64,
    maxSteps: 3,
    maxNewTokens: 6,
    temperature,
    topP: 1,
    seed: tasks[0] ?? 0,
    renderTools: false,
  });

async function successRate(model: PolicyModel): Promise<number> {
  const tasks = Array.from({ length: 50 }, (_, i) => i);
  const { trajectories } = await rollout(model, "test", tasks, 1, 0);
  return trajectories.filter((t) => t.success).length / trajectories.length;
}

const made = createModel(
  { dModel: 32, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 64, contextLength: 64, valueHead: true },
  { seed: 1 },
);
if (!made.ok) throw new Error(made.error);
const sft = made.value;
const demos = await collectDemos(client, tokenizer, {
  split: "train",
  tasks: sampleTasks(10_000, 64, 5),
  maxSteps: 3,
  concurrency: 8,
  renderTools: false,
});
const batch = buildBatch(demos, tokenizer.special.pad);
const adam = tf.train.adam(1e-2);
for (let s = 0; s < Number(values.sft); s++) {
  const rows = Array.from({ length: 16 }, (_, i) => (s * 16 + i) % batch.rows.length);
  const pick = (m: number[][]) => rows.map((r) => m[r] as number[]);
  sftUpdate(sft, adam, { ids: pick(batch.ids), targets: pick(batch.targets), mask: pick(batch.mask) }, 1);
}
report({ phase: "sft", success: await successRate(sft) });

for (const overrides of [
  { algorithm: "grpo" },
  { algorithm: "steppo", policyLoss: "gspo", clipLow: 3e-3, clipHigh: 4e-3 },
]) {
  const copy = frozenCopy(sft, 1);
  if (!copy.ok) throw new Error(copy.error);
  const config = TrainConfig.parse({ lr: Number(values.lr), ppoEpochs: Number(values.epochs), ...overrides });
  const optimizer = tf.train.adam(config.lr);
  for (let it = 1; it <= Number(values.iterations); it++) {
    const { trajectories } = await rollout(copy.value, "train", sampleTasks(10_000, 8, 100 + it), 8, 1);
    rlUpdate({ model: copy.value, optimizer, config, pad: tokenizer.special.pad }, trajectories);
  }
  report({ phase: config.algorithm, success: await successRate(copy.value) });
}
await client.close();
