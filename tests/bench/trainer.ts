/**
 * `npm run bench:trainer [-- --preset reference|small] [--backend wasm|cpu|...]`: training tokens/s
 * (forward + backward + Adam on full `[batch, seq]` rows) and sampling tokens/s (batch 64 with the KV
 * cache, 32-token prompts, 64 new tokens), printed as JSON. The reference preset is the shapes:
 * vocab 96, d_model 128, 2 layers, 4 heads, sequence 96, batch 8 (SwiGLU width 352 ≈ the 4·d ReLU MLP's
 * parameter count). The `_per_cpu_s` figures divide by the CPU time this process used, which is the
 * fairer number when other processes share the cores (load_average is printed too); they count every
 * thread of the process. Training runs sftStep and sampling the pool's sharded sampler over
 * `--workers` threads (default: the workers of the default recipe's RL run, what `npm start` uses).
 * Then, when a python with torch is found (tests/bench/torch-peer.ts), the PyTorch peer runs the same
 * shapes back to back on as many threads as edgegym has workers, and `ratios` gives torch / edgegym
 * beside the thread count torch reports (`--no-peer` skips it).
 * On both sides each loop (training steps, then sampling calls) runs for at least `--min-seconds` (2)
 * of wall time, training for at least `--steps` (10).
 */

import { loadavg } from "node:os";
import * as tf from "@tensorflow/tfjs-core";
import { rng } from "../../shared/random.js";
import { scriptArgs } from "../../shared/script-args.js";
import { initBackend, isBackendName } from "../../trainer/backend/backend.js";
import { BACKENDS } from "../../trainer/backend/names.js";
import { createModel } from "../../trainer/model/create-model.js";
import type { ModelConfig } from "../../trainer/model/types.js";
import { createAdam } from "../../trainer/optim/optimizer-step.js";
import { PolicyPool } from "../../trainer/parallel/policy-pool.js";
import { maskedNll, type SftBatch, sftStep } from "../../trainer/sft/step.js";
import { findTorchPython, INSTALL_HINT, type PeerResult, runTorchPeer } from "./torch-peer.js";

const PRESETS: Record<string, { model: Partial<ModelConfig>; seq: number; batch: number }> = {
  reference: {
    model: { vocabSize: 96, dModel: 128, nLayers: 2, nHeads: 4, nKvHeads: 4, dFf: 352, contextLength: 160 },
    seq: 96,
    batch: 8,
  },
  small: {
    model: { vocabSize: 268, dModel: 64, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 176, contextLength: 160 },
    seq: 96,
    batch: 8,
  },
};

// One RL iteration of the full-depth SmolLM2-135M shape is a benchmark of its own, with its own flags.
const presetAt = process.argv.indexOf("--preset");
if (process.argv[presetAt + 1] === "real-shape" || process.argv.includes("--preset=real-shape")) {
  // By a name esbuild leaves alone, as the recipe code below: the device check's bundle carries neither.
  const realShape = "./real-shape.js";
  await import(realShape);
  process.exit(0);
}

const USAGE = `Usage: npm run bench:trainer -- [options]

Training and sampling tokens/s of a small model, with the PyTorch peer's figures when torch is found,
printed as JSON.

Options:
  --preset <name>         model and batch shapes: ${Object.keys(PRESETS).join(", ")} (default reference);
                          real-shape: one GRPO iteration of SmolLM2-135M's shape (its own --help)
  --backend <name>        tfjs backend: ${BACKENDS.join(", ")} (default the first that loads)
  --steps <n>             training steps at least (default 10)
  --min-seconds <s>       wall seconds each loop runs at least (default 2)
  --sample-batch <n>      sampling batch (default 64)
  --prompt-len <n>        prompt tokens per sampled row (default 32)
  --new-tokens <n>        tokens sampled per row (default 64)
  --workers <n>           threads of training and sampling (default the default recipe's RL
                          workers, as npm start trains; 1 on webgpu); the PyTorch peer runs on as many threads
  --no-peer               skip the PyTorch peer
  -h, --help              this text`;
const args = scriptArgs("bench:trainer", USAGE, {
  preset: { type: "string", default: "reference" },
  backend: { type: "string" },
  steps: { type: "string", default: "10" },
  "min-seconds": { type: "string", default: "2" },
  "sample-batch": { type: "string", default: "64" },
  "prompt-len": { type: "string", default: "32" },
  "new-tokens": { type: "string", default: "64" },
  workers: { type: "string" },
  "no-peer": { type: "boolean", default: false },
});
const { values } = args;
const preset =
  PRESETS[values.preset] ??
  args.fail(`unknown preset ${values.preset}: use ${Object.keys(PRESETS).join(", ")}`);
const backendName =
  values.backend === undefined || isBackendName(values.backend)
    ? values.backend
    : args.fail(`unknown backend ${values.backend}`);
const steps = args.number("steps");
const minSeconds = args.number("min-seconds");
const sampleBatch = args.number("sample-batch");
const promptLen = args.number("prompt-len");
const newTokens = args.number("new-tokens");
const backend = await initBackend(backendName);
if (!backend.ok) throw new Error(backend.error);
const onWebgpu = backend.value.name === "webgpu";
/**
 * The workers of the default recipe's RL run: what `npm start` trains with on this machine. The
 * recipe code is imported by a name esbuild leaves alone: the device check's bundle (webgpu, which
 * needs no recipe) must not carry the recipes' env and plotting modules.
 */
async function runWorkers(): Promise<number> {
  const recipeModule = "../../trainer/pipeline/recipe.js";
  const { DEFAULT_RECIPE, loadRecipe }: typeof import("../../trainer/pipeline/recipe.js") = await import(
    recipeModule
  );
  const loaded = await loadRecipe(DEFAULT_RECIPE);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.value.recipe.rl.workers;
}
// The device check's bundle has no recipes folder, and runs webgpu, whose default needs none.
const workers = values.workers !== undefined ? args.number("workers") : onWebgpu ? 1 : await runWorkers();
if (workers < 1 || !Number.isInteger(workers)) args.fail(`--workers ${workers}: a whole number ≥ 1`);
if (onWebgpu && workers > 1)
  args.fail("--workers above 1 is for the cpu backends: the webgpu step is measured on the main thread");
const made = createModel(preset.model, { seed: 1 });
if (!made.ok) throw new Error(made.error);
const model = made.value;
const vocab = model.config.vocabSize;
const random = rng(7);
const row = (n: number) => Array.from({ length: n }, () => random.int(0, vocab - 1));

const batch = {
  ids: Array.from({ length: preset.batch }, () => row(preset.seq)),
  targets: Array.from({ length: preset.batch }, () => row(preset.seq)),
  mask: Array.from({ length: preset.batch }, () => Array(preset.seq).fill(1)),
};
const adam = createAdam({ learningRate: 1e-4 });

/**
 * sftStep's arithmetic for one pass (these shapes are one pass: 8·96·(2·4·96 + 2·96) elements ≪
 * PASS_ELEMENTS), reading the loss and the gradient norm with await: webgpu cannot read synchronously.
 */
async function awaitedStep(b: SftBatch): Promise<void> {
  const { value, grads } = tf.variableGrads(
    () =>
      maskedNll(
        model.logprobsOf(tf.tensor2d(b.ids, undefined, "int32"), tf.tensor2d(b.targets, undefined, "int32")),
        tf.tensor2d(b.mask),
      ),
    model.trainableVariables as tf.Variable[],
  );
  // Summed in a chain: one AddN over every gradient binds more buffers than lavapipe allows (16).
  const norm = tf.tidy(() =>
    Object.values(grads)
      .map((g) => tf.sum(tf.square(g)))
      .reduce((a, b) => tf.add(a, b)),
  );
  await Promise.all([value.data(), norm.data()]);
  adam.applyGradients(
    model.trainableVariables.map((v) => ({ name: v.name, tensor: grads[v.name] as tf.Tensor })),
  );
  tf.dispose([value, norm, ...Object.values(grads)]);
}
const pool = await PolicyPool.start(workers, backend.value.name, { policy: model });
const step = onWebgpu ? () => awaitedStep(batch) : () => sftStep(pool, adam, batch);
for (let i = 0; i < 2; i++) await step();
/** CPU seconds this process used: on a shared machine, wall time also counts other processes' turns. */
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};
/**
 * Runs `fn` at least `least` times and until `minSeconds` of wall time passed, as the peer's `timed`
 * does: one short call's figure moves ±20% with whatever else the machine does.
 */
async function timed(fn: () => unknown, least: number) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let calls = 0;
  while (calls < least || performance.now() - started < minSeconds * 1000) {
    await fn();
    calls++;
  }
  return { calls, seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
}
const train = await timed(step, steps);

const prompts = Array.from({ length: sampleBatch }, () => row(promptLen));
const opts = { maxNewTokens: newTokens, temperature: 1, topP: 1, stopIds: [], seed: 1 };
// One untimed call of the timed size: a thread's first call at this size takes 2–4 times the next
// (heap growth for the KV cache, compilation), which a loop of a few calls would count as sampling.
await pool.sample(prompts, opts);
let sampled = 0;
const sample = await timed(async () => {
  const out = await pool.sample(prompts, opts);
  sampled += out.tokens.reduce((a, t) => a + t.length, 0);
}, 1);
await pool.close();
const trainedTokens = train.calls * preset.batch * preset.seq;

const ours = {
  train_tokens_per_s: Math.round(trainedTokens / train.seconds),
  sample_tokens_per_s: Math.round(sampled / sample.seconds),
  train_tokens_per_cpu_s: Math.round(trainedTokens / train.cpu),
  sample_tokens_per_cpu_s: Math.round(sampled / sample.cpu),
};
const loadAverage = loadavg().map((x) => Math.round(x * 10) / 10);

// The PyTorch peer, back to back: same config, same work, as many threads as edgegym's workers.
// Ratios are torch / edgegym, in wall time and in CPU seconds (which count every thread on both sides).
let peer: PeerResult | null = null;
const python = values["no-peer"] ? null : findTorchPython();
if (!values["no-peer"] && python === null) console.error(INSTALL_HINT);
if (python !== null)
  peer = runTorchPeer(python, model.config, {
    batch: preset.batch,
    seq: preset.seq,
    sampleBatch: prompts.length,
    promptLen,
    newTokens: opts.maxNewTokens,
    minSeconds,
    threads: workers,
  });
const ratio = (x: number | undefined, y: number) =>
  x === undefined ? null : Math.round((x / y) * 100) / 100;
const same = peer?.threads[String(workers)];

console.log(
  JSON.stringify({
    backend: backend.value.name,
    workers,
    model: { preset: values.preset, ...model.config },
    ...ours,
    load_average: loadAverage,
    train: {
      batch: preset.batch,
      seq: preset.seq,
      steps: train.calls,
      step: onWebgpu ? "sftStep's arithmetic, awaited reads" : "sftStep",
    },
    sample: {
      batch: prompts.length,
      prompt: promptLen,
      new_tokens: opts.maxNewTokens,
      calls: sample.calls,
    },
    tensors_alive: tf.memory().numTensors,
    peer,
    ratios: peer && {
      peer_threads: same?.torch_threads ?? null,
      train_wall: ratio(same?.train_tokens_per_s, ours.train_tokens_per_s),
      sample_wall: ratio(same?.sample_tokens_per_s, ours.sample_tokens_per_s),
      train_cpu: ratio(same?.train_tokens_per_cpu_s, ours.train_tokens_per_cpu_s),
      sample_cpu: ratio(same?.sample_tokens_per_cpu_s, ours.sample_tokens_per_cpu_s),
    },
  }),
);
