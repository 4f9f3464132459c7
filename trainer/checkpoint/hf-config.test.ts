import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { loadCheckpoint } from "./checkpoint.js";
import { fromHfConfig } from "./hf-config.js";
import { encodeSafetensors, type StoredTensor } from "./safetensors.js";

// Each HF config field that changes the computation, both ways: accepted and equal to an independent
// float64 forward pass written from transformers' modeling_llama / modeling_qwen2, or refused naming it.
const D = 8;
const H = 2;
const KV = 1;
const HD = 4;
const F = 12;
const V = 10;
const L = 2;
const CONTEXT = 16;

type Variant = { qkvBias: boolean; tied: boolean };

/** A small LCG, so the weights are the same on every run without another module. */
function lcg(seed: number) {
  let state = seed;
  return {
    next: () => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state / 2 ** 32;
    },
  };
}

function hfTensors(v: Variant): Map<string, StoredTensor> {
  const random = lcg(7);
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
  const out = new Map<string, StoredTensor>([["model.embed_tokens.weight", t([V, D])]]);
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    out.set(`${p}input_layernorm.weight`, norm());
    out.set(`${p}self_attn.q_proj.weight`, t([H * HD, D]));
    out.set(`${p}self_attn.k_proj.weight`, t([KV * HD, D]));
    out.set(`${p}self_attn.v_proj.weight`, t([KV * HD, D]));
    if (v.qkvBias) {
      out.set(`${p}self_attn.q_proj.bias`, t([H * HD]));
      out.set(`${p}self_attn.k_proj.bias`, t([KV * HD]));
      out.set(`${p}self_attn.v_proj.bias`, t([KV * HD]));
    }
    out.set(`${p}self_attn.o_proj.weight`, t([D, H * HD]));
    out.set(`${p}post_attention_layernorm.weight`, norm());
    out.set(`${p}mlp.gate_proj.weight`, t([F, D]));
    out.set(`${p}mlp.up_proj.weight`, t([F, D]));
    out.set(`${p}mlp.down_proj.weight`, t([D, F]));
  }
  out.set("model.norm.weight", norm());
  if (!v.tied) out.set("lm_head.weight", t([V, D]));
  return out;
}

/** transformers' forward in float64: `[out, in]` weights, rotate-half RoPE, repeat_kv, q/k/v biases when present. */
function referenceLogits(
  w: Map<string, StoredTensor>,
  ids: number[],
  o: { tied: boolean; theta?: number; window?: number },
): number[] {
  const has = (n: string) => w.has(n);
  const get = (n: string) => (w.get(n) as StoredTensor).data;
  const linear = (name: string, x: number[], out: number, bias?: string) =>
    Array.from(
      { length: out },
      (_, r) =>
        x.reduce((s, xi, i) => s + (get(name)[r * x.length + i] as number) * xi, 0) +
        (bias && has(bias) ? (get(bias)[r] as number) : 0),
    );
  const rms = (x: number[], name: string) => {
    const r = 1 / Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length + 1e-6);
    return x.map((v, i) => v * r * (get(name)[i] as number));
  };
  const theta = o.theta ?? 10_000;
  const rope = (x: number[], pos: number) =>
    x.map((v, j) => {
      const head = Math.floor(j / HD) * HD;
      const i = j % HD;
      const angle = pos * theta ** (-(2 * (i % (HD / 2))) / HD);
      const rotated = i < HD / 2 ? -(x[head + i + HD / 2] as number) : (x[head + i - HD / 2] as number);
      return v * Math.cos(angle) + rotated * Math.sin(angle);
    });
  let xs = ids.map((id) => Array.from(get("model.embed_tokens.weight").slice(id * D, id * D + D)));
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.self_attn.`;
    const a = xs.map((x) => rms(x, `model.layers.${l}.input_layernorm.weight`));
    const q = a.map((x, t) => rope(linear(`${p}q_proj.weight`, x, H * HD, `${p}q_proj.bias`), t));
    const k = a.map((x, t) => rope(linear(`${p}k_proj.weight`, x, KV * HD, `${p}k_proj.bias`), t));
    const v = a.map((x) => linear(`${p}v_proj.weight`, x, KV * HD, `${p}v_proj.bias`));
    const attn = q.map((qt, t) =>
      [...Array(H).keys()].flatMap((h) => {
        const kvh = Math.floor(h / (H / KV));
        // Keys j ≤ t, and with a sliding window only t − j < window.
        const keys = [...Array(t + 1).keys()].filter((j) => o.window === undefined || t - j < o.window);
        const scores = keys.map(
          (j) =>
            [...Array(HD).keys()].reduce(
              (acc, c) => acc + (qt[h * HD + c] as number) * (k[j]?.[kvh * HD + c] as number),
              0,
            ) / Math.sqrt(HD),
        );
        const max = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - max));
        const z = e.reduce((s, x) => s + x, 0);
        return [...Array(HD).keys()].map((c) =>
          e.reduce((acc, pe, n) => acc + (pe / z) * (v[keys[n] as number]?.[kvh * HD + c] as number), 0),
        );
      }),
    );
    xs = xs.map((x, t) => {
      const out = linear(`${p}o_proj.weight`, attn[t] as number[], D);
      return x.map((xi, i) => xi + (out[i] as number));
    });
    const m = `model.layers.${l}.mlp.`;
    xs = xs.map((x) => {
      const n = rms(x, `model.layers.${l}.post_attention_layernorm.weight`);
      const g = linear(`${m}gate_proj.weight`, n, F);
      const u = linear(`${m}up_proj.weight`, n, F);
      const down = linear(
        `${m}down_proj.weight`,
        g.map((gi, i) => (gi / (1 + Math.exp(-gi))) * (u[i] as number)),
        D,
      );
      return x.map((xi, i) => xi + (down[i] as number));
    });
  }
  return xs.flatMap((x) =>
    linear(o.tied ? "model.embed_tokens.weight" : "lm_head.weight", rms(x, "model.norm.weight"), V),
  );
}

const IDS = [3, 1, 4, 1, 5, 9, 2, 6];
let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-hfconfig-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseConfig = (arch: "llama" | "qwen2", tied: boolean) => ({
  model_type: arch,
  vocab_size: V,
  hidden_size: D,
  intermediate_size: F,
  num_hidden_layers: L,
  num_attention_heads: H,
  num_key_value_heads: KV,
  max_position_embeddings: CONTEXT,
  rms_norm_eps: 1e-6,
  rope_theta: 10_000,
  tie_word_embeddings: tied,
  hidden_act: "silu",
});

let folders = 0;
async function load(config: object, tensors: Map<string, StoredTensor>) {
  const folder = join(dir, `m${folders++}`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "model.safetensors"), encodeSafetensors(tensors, { format: "pt" }));
  await writeFile(join(folder, "config.json"), JSON.stringify(config));
  return loadCheckpoint(folder);
}

async function expectReference(
  config: object,
  v: Variant,
  ref: { theta?: number; window?: number } = {},
): Promise<void> {
  const tensors = hfTensors(v);
  const loaded = await load(config, tensors);
  if (!loaded.ok) throw new Error(loaded.error);
  const ours = tf.tidy(() =>
    Array.from(loaded.value.model.logits(tf.tensor2d([IDS], undefined, "int32")).dataSync()),
  );
  const want = referenceLogits(tensors, IDS, { tied: v.tied, ...ref });
  expect(ours).toHaveLength(want.length);
  want.forEach((x, i) => {
    expect(ours[i]).toBeCloseTo(x, 4);
  });
  loaded.value.model.dispose();
}

async function expectRefused(config: object, v: Variant, message: string): Promise<void> {
  const loaded = await load(config, hfTensors(v));
  expect(loaded.ok ? "loaded" : loaded.error).toContain(message);
}

const LLAMA: Variant = { qkvBias: false, tied: false };
const QWEN: Variant = { qkvBias: true, tied: false };

describe("HF config fields: implemented, or refused by name", () => {
  it("qkv biases: Qwen2's are loaded and added; one missing is named", async () => {
    await expectReference(baseConfig("qwen2", false), QWEN);
    const tensors = hfTensors(QWEN);
    tensors.delete("model.layers.1.self_attn.k_proj.bias");
    const loaded = await load(baseConfig("qwen2", false), tensors);
    expect(loaded.ok ? "" : loaded.error).toContain("missing tensor model.layers.1.self_attn.k_proj.bias");
  });

  it("tie_word_embeddings: true scores with the embedding, false with lm_head", async () => {
    await expectReference(baseConfig("llama", true), { qkvBias: false, tied: true });
    await expectReference(baseConfig("qwen2", true), { qkvBias: true, tied: true });
    await expectReference(baseConfig("llama", false), LLAMA);
  });

  it("mlp_bias: false is accepted; true is refused", async () => {
    await expectReference({ ...baseConfig("llama", false), mlp_bias: false }, LLAMA);
    await expectRefused({ ...baseConfig("llama", false), mlp_bias: true }, LLAMA, "mlp_bias");
  });

  it("attention_bias: false is accepted; true on a llama is refused", async () => {
    await expectReference({ ...baseConfig("llama", false), attention_bias: false }, LLAMA);
    await expectRefused({ ...baseConfig("llama", false), attention_bias: true }, LLAMA, "attention_bias");
    const qwen3 = fromHfConfig({ ...baseConfig("llama", false), model_type: "qwen3", attention_bias: true });
    expect(qwen3.ok ? "" : qwen3.error).toContain("attention_bias: true (q/k/v/o biases on a qwen3)");
  });

  it("rope_scaling / rope_parameters: none, default or llama3 is accepted (theta read from either); another scaling is refused", async () => {
    await expectReference({ ...baseConfig("llama", false), rope_scaling: null }, LLAMA);
    await expectReference({ ...baseConfig("llama", false), rope_scaling: { rope_type: "default" } }, LLAMA);
    const { rope_theta: _, ...noTheta } = baseConfig("llama", false);
    await expectReference({ ...noTheta, rope_parameters: { rope_type: "default", rope_theta: 500 } }, LLAMA, {
      theta: 500,
    });
    await expectRefused(
      { ...baseConfig("llama", false), rope_scaling: { type: "linear", factor: 2 } },
      LLAMA,
      "rope_scaling of type linear",
    );
    // llama3's values are checked against transformers' logits (tests/fixtures/hf-models); here its fields.
    await expectRefused(
      { ...baseConfig("llama", false), rope_parameters: { rope_type: "llama3", factor: 8 } },
      LLAMA,
      "rope_parameters of type llama3 lacks low_freq_factor, high_freq_factor, original_max_position_embeddings",
    );
    await expectRefused(
      { ...baseConfig("llama", false), rope_parameters: { rope_type: "yarn", factor: 8 } },
      LLAMA,
      "rope_parameters of type yarn",
    );
  });

  it("head_dim: equal to hidden_size / heads is accepted; another sizes the projections", async () => {
    await expectReference({ ...baseConfig("qwen2", false), head_dim: HD }, QWEN);
    // Its values are checked against transformers' logits (tests/fixtures/hf-models); here its shapes.
    await expectRefused(
      { ...baseConfig("llama", false), head_dim: 8 },
      LLAMA,
      "tensor model.layers.0.self_attn.q_proj.weight has shape [8,8], expected [16,8]",
    );
  });

  it("use_sliding_window / sliding_window: accepted where it masks nothing, refused where it would", async () => {
    // Off: the window is ignored, however short.
    await expectReference(
      { ...baseConfig("qwen2", false), use_sliding_window: false, sliding_window: 2 },
      QWEN,
    );
    // On, but no layer at or above max_window_layers (2 of 2 layers are full attention).
    await expectReference(
      { ...baseConfig("qwen2", false), use_sliding_window: true, sliding_window: 2, max_window_layers: 2 },
      QWEN,
    );
    // On for every layer with a window of the whole context: i − j ≤ 15 < 16 for every visible key.
    await expectReference(
      {
        ...baseConfig("qwen2", false),
        use_sliding_window: true,
        sliding_window: CONTEXT,
        max_window_layers: 0,
      },
      QWEN,
      { window: CONTEXT },
    );
    await expectRefused(
      { ...baseConfig("qwen2", false), use_sliding_window: true, sliding_window: 4, max_window_layers: 1 },
      QWEN,
      "use_sliding_window with sliding_window 4 < context length 16 on layers 1–1",
    );
    await expectRefused(
      {
        ...baseConfig("qwen2", false),
        use_sliding_window: true,
        sliding_window: 4,
        layer_types: ["sliding_attention", "full_attention"],
      },
      QWEN,
      "on layers 0–0",
    );
  });

  it("a window shorter than the sequence would change the logits (why it is refused)", () => {
    const tensors = hfTensors(QWEN);
    const full = referenceLogits(tensors, IDS, { tied: false });
    const windowed = referenceLogits(tensors, IDS, { tied: false, window: 4 });
    // Positions 0–3 see the same keys either way; position 7 loses keys 0–3.
    expect(windowed.slice(0, 4 * V)).toEqual(full.slice(0, 4 * V));
    expect(Math.max(...windowed.map((x, i) => Math.abs(x - (full[i] as number))))).toBeGreaterThan(1e-3);
  });

  it("attention_dropout > 0 and another hidden_act are refused", async () => {
    await expectReference({ ...baseConfig("qwen2", false), attention_dropout: 0 }, QWEN);
    await expectRefused(
      { ...baseConfig("qwen2", false), attention_dropout: 0.1 },
      QWEN,
      "attention_dropout 0.1",
    );
    await expectRefused({ ...baseConfig("llama", false), hidden_act: "gelu" }, LLAMA, "hidden_act gelu");
  });

  it("a context length asked for replaces the saved one, and the sliding-window check uses it", () => {
    const windowed = {
      ...baseConfig("qwen2", false),
      use_sliding_window: true,
      sliding_window: CONTEXT,
      max_window_layers: 0,
    };
    const saved = fromHfConfig(windowed);
    expect(saved.ok && saved.value.contextLength).toBe(CONTEXT);
    const shorter = fromHfConfig(windowed, { contextLength: CONTEXT / 2 });
    expect(shorter.ok && shorter.value.contextLength).toBe(CONTEXT / 2);
    // A window of 16 masks keys once the context reaches 32: i − j can then be 16 or more.
    expect(fromHfConfig(windowed, { contextLength: 2 * CONTEXT })).toEqual({
      ok: false,
      error: expect.stringContaining("sliding_window 16 < context length 32"),
    });
  });
});
