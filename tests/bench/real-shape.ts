/**
 * `npm run bench:trainer -- --preset real-shape [--layers 30] [--context 256] [--group 4] [--new-tokens 12]`:
 * one GRPO iteration end to end (load, sample a group, score, update, save the final checkpoint) of a
 * random-weight model at SmolLM2-135M's config with its 49,152-id tokenizer (trainer/testing/
 * real-shape-fixture.ts) against local:calculator, printed as JSON: wall and CPU time, the measured
 * peaks (live tensor buffers, the wasm heap's size, the process's peak RSS) beside the memory estimate
 * (trainer/model/memory.ts) for the widest row the update trained, and their ratios.
 *
 * The wasm heap only grows, so its final size is its high-water mark (plus at most the 96 MiB it
 * grows past a request); peak RSS is the kernel's maxrss, which includes the heap. One worker: a pool would
 * hold a copy of the policy per thread, which the estimate does not count.
 */

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { scriptArgs } from "../../shared/script-args.js";
import { initBackend, isBackendName } from "../../trainer/backend/backend.js";
import { loadCheckpoint, saveCheckpoint } from "../../trainer/checkpoint/checkpoint.js";
import { fromHfConfig } from "../../trainer/checkpoint/hf-config.js";
import { budgeted, estimateTrainingMemory, parameterCount } from "../../trainer/model/memory.js";
import { resolveTrainConfig } from "../../trainer/rl/config.js";
import { runRl } from "../../trainer/rl/run.js";
import { SMOLLM2_135M, writeRandomHfModel } from "../../trainer/testing/real-shape-fixture.js";

const USAGE = `Usage: npm run bench:trainer -- --preset real-shape [options]

One GRPO iteration of a random SmolLM2-135M-shaped model, its wall time and peak memory against the
estimate, printed as JSON.

Options:
  --layers <n>        decoder layers (default 30, the model's own)
  --context <n>       max_position_embeddings (default 256)
  --group <n>         episodes of the one task (default 4)
  --new-tokens <n>    tokens sampled per turn (default 12)
  --max-steps <n>     turns per episode (default 2)
  --entropy-coef <x>  entropy bonus (default 0.001: a random model fails every episode, so GRPO's
                      advantages are all 0 and only this term gives the update a nonzero gradient)
  --backend <name>    tfjs backend (default wasm)
  -h, --help          this text`;
const args = scriptArgs("bench:trainer", USAGE, {
  preset: { type: "string" },
  layers: { type: "string", default: "30" },
  context: { type: "string", default: "256" },
  group: { type: "string", default: "4" },
  "new-tokens": { type: "string", default: "12" },
  "max-steps": { type: "string", default: "2" },
  "entropy-coef": { type: "string", default: "0.001" },
  backend: { type: "string", default: "wasm" },
});
const backendName = isBackendName(args.values.backend)
  ? args.values.backend
  : args.fail(`unknown backend ${args.values.backend}`);
const hf = {
  ...SMOLLM2_135M,
  num_hidden_layers: args.number("layers"),
  max_position_embeddings: args.number("context"),
};
const group = args.number("group");

const MIB = 2 ** 20;
const mib = (bytes: number) => Math.round(bytes / MIB);
const ratio = (measured: number, estimated: number) => Math.round((measured / estimated) * 1000) / 1000;

const dir = await mkdtemp(join(tmpdir(), "edgegym-real-shape-bench-"));
try {
  const model = join(dir, "model");
  await writeRandomHfModel(model, hf);
  const backend = await initBackend(backendName);
  if (!backend.ok) throw new Error(backend.error);

  // Live tensor buffers, each counted once (tfjs's own numBytes counts every tensor, and reshapes and
  // saved clones share a buffer): the engine records a buffer in tensorInfo when it is made and
  // removes it when it is freed.
  const info = tf.engine().state.tensorInfo as WeakMap<object, { bytes: number }>;
  const [set, remove] = [info.set.bind(info), info.delete.bind(info)];
  let liveBytes = 0;
  let peakBufferBytes = 0;
  info.set = (id, entry) => {
    if (!info.has(id)) liveBytes += entry.bytes;
    peakBufferBytes = Math.max(peakBufferBytes, liveBytes);
    return set(id, entry);
  };
  info.delete = (id) => {
    liveBytes -= info.get(id)?.bytes ?? 0;
    return remove(id);
  };
  const heap = () =>
    (tf.backend() as unknown as { wasm?: { HEAPU8: Uint8Array } }).wasm?.HEAPU8.buffer.byteLength;
  const before = { rss: process.memoryUsage().rss, heap: heap() };

  const config = resolveTrainConfig({}, [
    `out=${join(dir, "run")}`,
    `init=${model}`,
    `backend=${backendName}`,
    "env=local:calculator",
    "iterations=1",
    "tasksPerIteration=1",
    `groupSize=${group}`,
    `logTrajectories=${group}`,
    `maxSteps=${args.number("max-steps")}`,
    `maxNewTokens=${args.number("new-tokens")}`,
    `entropyCoef=${args.number("entropy-coef")}`,
    "workers=1",
  ]);
  if (!config.ok) throw new Error(config.error);
  const logs: string[] = [];
  // The peaks of the iteration itself, before the final checkpoint is written (which copies the
  // weights and moments out to encode them).
  let beforeSave: { rss: number; heap: number | undefined } | undefined;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await runRl(config.value, {
    log: (l) => logs.push(l),
    saveCheckpoint: (to, checkpoint) => {
      beforeSave ??= { rss: process.resourceUsage().maxRSS * 1024, heap: heap() };
      return saveCheckpoint(to, checkpoint);
    },
    loadCheckpoint,
  });
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (!result.ok) throw new Error(result.error);

  // The widest row the update trained: an episode's last prompt and response (earlier turns are its prefix).
  const lines = (await readFile(join(dir, "run", "trajectories.jsonl"), "utf8")).trim().split("\n");
  const width = Math.max(
    ...lines.flatMap((l) =>
      (JSON.parse(l).steps as { promptIds: number[]; responseIds: number[] }[]).map(
        (s) => s.promptIds.length + s.responseIds.length,
      ),
    ),
  );
  const modelConfig = fromHfConfig(hf);
  if (!modelConfig.ok) throw new Error(modelConfig.error);
  const estimate = estimateTrainingMemory(modelConfig.value, {
    reference: config.value.klCoef > 0,
    backend: backendName,
    width,
  });
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const wasmHeap = heap();
  const last = result.value.last;

  console.log(
    JSON.stringify({
      backend: backendName,
      model: {
        layers: hf.num_hidden_layers,
        parameters: parameterCount(modelConfig.value),
        vocab: hf.vocab_size,
        context: hf.max_position_embeddings,
      },
      run: {
        env: "local:calculator",
        episodes: last["episode/count"],
        max_steps: config.value.maxSteps,
        max_new_tokens: config.value.maxNewTokens,
        entropy_coef: config.value.entropyCoef,
        widest_row: width,
        workers: 1,
      },
      wall_s: Math.round(wall * 10) / 10,
      cpu_s: Math.round(((used.user + used.system) / 1e6) * 10) / 10,
      load_average: loadavg().map((x) => Math.round(x * 10) / 10),
      metrics: {
        "losses/policy": last["losses/policy"],
        "losses/entropy": last["losses/entropy"],
        "grad/norm": last["grad/norm"],
        "perf/sample_tokens_per_s": last["perf/sample_tokens_per_s"],
        "perf/train_tokens_per_s": last["perf/train_tokens_per_s"],
      },
      estimate_mib: {
        heap: mib(estimate.total),
        parts: Object.fromEntries(Object.entries(estimate.parts).map(([k, v]) => [k, mib(v)])),
        host: mib(estimate.host),
        budgeted: mib(budgeted(estimate, backendName)),
        pass: estimate.pass,
      },
      measured_mib: {
        peak_buffers: mib(peakBufferBytes),
        ...(wasmHeap !== undefined
          ? { wasm_heap: mib(wasmHeap), wasm_heap_at_start: mib(before.heap ?? 0) }
          : {}),
        peak_rss: mib(maxRss),
        peak_rss_before_save: mib(beforeSave?.rss ?? maxRss),
        rss_at_start: mib(before.rss),
      },
      ratios: {
        peak_buffers_to_heap_estimate: ratio(peakBufferBytes, estimate.total),
        ...(wasmHeap !== undefined ? { wasm_heap_to_heap_estimate: ratio(wasmHeap, estimate.total) } : {}),
        // The process's own memory before any tensor (node, tfjs, the modules) is not the estimate's.
        rss_growth_before_save_to_heap_and_host_estimate: ratio(
          (beforeSave?.rss ?? maxRss) - before.rss,
          estimate.total + estimate.host,
        ),
      },
      memory_line: logs.find((l) => l.startsWith("memory:")),
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
