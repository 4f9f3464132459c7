import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rng } from "../../shared/random.js";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { sftStep } from "../sft/step.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { encodeSafetensors, type StoredTensor } from "./safetensors.js";

let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-ckpt-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const IDS = [[257, 260, 104, 105, 263, 261, 111, 107]];
const BATCH = {
  ids: [IDS[0]?.slice(0, -1) ?? []],
  targets: [IDS[0]?.slice(1) ?? []],
  mask: [[0, 0, 0, 0, 1, 1, 1]],
};

function logitsOf(model: PolicyModel, ids: number[][]): number[] {
  return tf.tidy(() => Array.from(model.logits(tf.tensor2d(ids, undefined, "int32")).dataSync()));
}

describe("checkpoints", () => {
  it("round-trip exactly and resume training with the optimizer state", async () => {
    const made = createModel(
      {
        dModel: 32,
        nLayers: 2,
        nHeads: 4,
        nKvHeads: 2,
        dFf: 48,
        contextLength: 16,
        tieEmbeddings: false,
        valueHead: true,
      },
      { seed: 9 },
    );
    if (!made.ok) throw new Error(made.error);
    const model = made.value;
    const adam = createAdam({ learningRate: 1e-2 });
    await sftStep(PolicyPool.of({ policy: model }), adam, BATCH);
    await sftStep(PolicyPool.of({ policy: model }), adam, BATCH);
    const saved = await saveCheckpoint(join(dir, "a"), {
      model,
      tokenizer: new ByteTokenizer(),
      optimizer: adam,
      meta: { step: 2, run: "t" },
    });
    expect(saved.ok).toBe(true);
    const loaded = await loadCheckpoint(join(dir, "a"));
    if (!loaded.ok) throw new Error(loaded.error);
    const copy = loaded.value;
    expect(copy.meta).toEqual({ step: 2, run: "t" });
    expect(copy.model.config).toEqual(model.config);
    expect(copy.tokenizer.kind).toBe("byte");
    expect(logitsOf(copy.model, IDS)).toEqual(logitsOf(model, IDS));
    const values = (m: PolicyModel) =>
      tf.tidy(() => Array.from(m.values(tf.tensor2d(IDS, undefined, "int32")).dataSync()));
    expect(values(copy.model)).toEqual(values(model));
    // One more step from the saved Adam moments lands exactly where continuing in memory does; a
    // fresh Adam moves every weight by ≈ lr = 1e-2 instead.
    await sftStep(PolicyPool.of({ policy: model }), adam, BATCH);
    await sftStep(PolicyPool.of({ policy: copy.model }), copy.optimizer as tf.AdamOptimizer, BATCH);
    const want = logitsOf(model, IDS);
    expect(logitsOf(copy.model, IDS)).toEqual(want);
    const fresh = (await loadCheckpoint(join(dir, "a"))) as { value: { model: PolicyModel } };
    await sftStep(PolicyPool.of({ policy: fresh.value.model }), createAdam({ learningRate: 1e-2 }), BATCH);
    const drift = logitsOf(fresh.value.model, IDS).reduce(
      (m, x, i) => Math.max(m, Math.abs(x - (want[i] as number))),
      0,
    );
    expect(drift).toBeGreaterThan(1e-3);
  });

  it("reports a missing folder and a config of another architecture", async () => {
    expect((await loadCheckpoint(join(dir, "none"))).ok).toBe(false);
    await rm(join(dir, "b"), { recursive: true, force: true });
    await saveCheckpoint(join(dir, "b"), {
      model: (
        createModel({ dModel: 16, nHeads: 2, nKvHeads: 2, dFf: 16, nLayers: 1 }, { seed: 1 }) as {
          value: PolicyModel;
        }
      ).value,
      tokenizer: new ByteTokenizer(),
      meta: { step: 0 },
    });
    await writeFile(join(dir, "b", "config.json"), JSON.stringify({ model_type: "gpt2" }));
    const bad = await loadCheckpoint(join(dir, "b"));
    expect(bad.ok ? "" : bad.error).toContain("unsupported model_type gpt2");
  });
});

// A tiny Llama in Hugging Face layout and an independent reference forward pass written from the
// transformers modelling code (rotate-half RoPE, repeat_kv, [out, in] weights).
const D = 8;
const H = 2;
const KV = 1;
const HD = 4;
const F = 12;
const V = 10;

function hfTensors(): Map<string, StoredTensor> {
  const random = rng(42);
  const t = (shape: number[], scale = 0.5): StoredTensor => ({
    shape,
    data: Float32Array.from(
      { length: shape.reduce((a, b) => a * b, 1) },
      () => (random.next() * 2 - 1) * scale,
    ),
  });
  const norm = (): StoredTensor => ({
    shape: [D],
    data: Float32Array.from({ length: D }, () => 0.5 + random.next()),
  });
  return new Map([
    ["model.embed_tokens.weight", t([V, D])],
    ["model.layers.0.input_layernorm.weight", norm()],
    ["model.layers.0.self_attn.q_proj.weight", t([H * HD, D])],
    ["model.layers.0.self_attn.k_proj.weight", t([KV * HD, D])],
    ["model.layers.0.self_attn.v_proj.weight", t([KV * HD, D])],
    ["model.layers.0.self_attn.o_proj.weight", t([D, H * HD])],
    ["model.layers.0.post_attention_layernorm.weight", norm()],
    ["model.layers.0.mlp.gate_proj.weight", t([F, D])],
    ["model.layers.0.mlp.up_proj.weight", t([F, D])],
    ["model.layers.0.mlp.down_proj.weight", t([D, F])],
    ["model.norm.weight", norm()],
    ["lm_head.weight", t([V, D])],
  ]);
}

function referenceLogits(w: Map<string, StoredTensor>, ids: number[]): number[][] {
  const get = (n: string) => (w.get(n) as StoredTensor).data;
  const linear = (name: string, x: number[], out: number) =>
    Array.from({ length: out }, (_, o) =>
      x.reduce((s, xi, i) => s + (get(name)[o * x.length + i] as number) * xi, 0),
    );
  const rms = (x: number[], name: string) => {
    const r = 1 / Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length + 1e-6);
    return x.map((v, i) => v * r * (get(name)[i] as number));
  };
  const rope = (x: number[], pos: number) =>
    x.map((v, j) => {
      const head = Math.floor(j / HD) * HD;
      const i = j % HD;
      const angle = pos * 10_000 ** (-(2 * (i % (HD / 2))) / HD);
      const rotated = i < HD / 2 ? -(x[head + i + HD / 2] as number) : (x[head + i - HD / 2] as number);
      return v * Math.cos(angle) + rotated * Math.sin(angle);
    });
  let xs = ids.map((id) => Array.from(get("model.embed_tokens.weight").slice(id * D, id * D + D)));
  const p = "model.layers.0.";
  const a = xs.map((x) => rms(x, `${p}input_layernorm.weight`));
  const q = a.map((x, t) => rope(linear(`${p}self_attn.q_proj.weight`, x, H * HD), t));
  const k = a.map((x, t) => rope(linear(`${p}self_attn.k_proj.weight`, x, KV * HD), t));
  const v = a.map((x) => linear(`${p}self_attn.v_proj.weight`, x, KV * HD));
  const attn = q.map((qt, t) =>
    [...Array(H).keys()].flatMap((h) => {
      const kvh = Math.floor(h / (H / KV));
      const dot = (s: number) =>
        [...Array(HD).keys()].reduce(
          (acc, j) => acc + (qt[h * HD + j] as number) * (k[s]?.[kvh * HD + j] as number),
          0,
        ) / Math.sqrt(HD);
      const scores = [...Array(t + 1).keys()].map(dot);
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const z = e.reduce((s, x) => s + x, 0);
      return [...Array(HD).keys()].map((j) =>
        e.reduce((acc, pe, s) => acc + (pe / z) * (v[s]?.[kvh * HD + j] as number), 0),
      );
    }),
  );
  xs = xs.map((x, t) => {
    const o = linear(`${p}self_attn.o_proj.weight`, attn[t] as number[], D);
    return x.map((xi, i) => xi + (o[i] as number));
  });
  xs = xs.map((x) => {
    const m = rms(x, `${p}post_attention_layernorm.weight`);
    const g = linear(`${p}mlp.gate_proj.weight`, m, F);
    const u = linear(`${p}mlp.up_proj.weight`, m, F);
    const hidden = g.map((gi, i) => (gi / (1 + Math.exp(-gi))) * (u[i] as number));
    const down = linear(`${p}mlp.down_proj.weight`, hidden, D);
    return x.map((xi, i) => xi + (down[i] as number));
  });
  return xs.map((x) => linear("lm_head.weight", rms(x, "model.norm.weight"), V));
}

describe("Hugging Face checkpoints", () => {
  it("loads a Llama safetensors folder and matches a reference forward pass", async () => {
    const hf = join(dir, "hf-llama");
    await rm(hf, { recursive: true, force: true });
    await import("node:fs/promises").then((fs) => fs.mkdir(hf, { recursive: true }));
    const tensors = hfTensors();
    await writeFile(join(hf, "model.safetensors"), encodeSafetensors(tensors, { format: "pt" }));
    await writeFile(
      join(hf, "config.json"),
      JSON.stringify({
        architectures: ["LlamaForCausalLM"],
        model_type: "llama",
        vocab_size: V,
        hidden_size: D,
        intermediate_size: F,
        num_hidden_layers: 1,
        num_attention_heads: H,
        num_key_value_heads: KV,
        max_position_embeddings: 32,
        rms_norm_eps: 1e-6,
        rope_theta: 10_000,
        tie_word_embeddings: false,
        hidden_act: "silu",
      }),
    );
    const loaded = await loadCheckpoint(hf);
    if (!loaded.ok) throw new Error(loaded.error);
    const ids = [3, 1, 4, 1, 5];
    const ours = logitsOf(loaded.value.model, [ids]);
    referenceLogits(tensors, ids)
      .flat()
      .forEach((want, i) => {
        expect(ours[i]).toBeCloseTo(want, 4);
      });
    // Saving writes the same HF tensors back.
    await saveCheckpoint(join(dir, "hf-copy"), { ...loaded.value });
    const again = await loadCheckpoint(join(dir, "hf-copy"));
    if (!again.ok) throw new Error(again.error);
    expect(logitsOf(again.value.model, [ids])).toEqual(ours);
  });

  it("names the tensor that is missing", async () => {
    const hf = join(dir, "hf-llama");
    const tensors = hfTensors();
    tensors.delete("model.layers.0.mlp.up_proj.weight");
    await writeFile(join(hf, "model.safetensors"), encodeSafetensors(tensors));
    const loaded = await loadCheckpoint(hf);
    expect(loaded.ok ? "" : loaded.error).toContain("missing tensor model.layers.0.mlp.up_proj.weight");
  });
});
