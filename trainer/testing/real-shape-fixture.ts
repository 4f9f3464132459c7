import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encodeSafetensors, type StoredTensor } from "../checkpoint/safetensors.js";

/**
 * A random-weight model folder in Hugging Face layout at SmolLM2-135M's config, for the real-shape test.
 * No npm package ships SmolLM2's tokenizer (the Llama/Qwen ones have 32k, 128k or 151k ids), so the
 * tokenizer is built here: a GPT-2-style ByteLevel BPE tokenizer.json with SmolLM2's layout of exactly
 * 49,152 ids (`<|endoftext|>` 0, `<|im_start|>` 1, `<|im_end|>` 2, then the 256 byte symbols, then one
 * token per merge) and SmolLM2-Instruct's ChatML template. Its merges are pairs of byte symbols, common
 * characters first, where the real one learned longer merges from text: the ids, special tokens,
 * pre-tokenizer and decoder have the real shape, the segmentation does not.
 */
export const SMOLLM2_135M = {
  architectures: ["LlamaForCausalLM"],
  model_type: "llama",
  vocab_size: 49_152,
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  max_position_embeddings: 8192,
  rope_theta: 100_000,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: true,
  hidden_act: "silu",
  attention_bias: false,
  mlp_bias: false,
  bos_token_id: 0,
  eos_token_id: 0,
};

const SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];

/** GPT-2's byte → printable symbol table (bytes_to_unicode). */
function byteSymbols(): string[] {
  const keep = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let extra = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(keep(b) ? b : 256 + extra++));
}

/** tokenizer.json + tokenizer_config.json with `vocab` ids in all. */
export function byteLevelTokenizer(vocab: number): { tokenizer: object; config: object } {
  const symbols = byteSymbols();
  // Common characters first so the earliest merges are the likely ones: space (Ġ), letters, digits.
  const rank = (s: string) => {
    const i = " etaoinsrhldcumfpgwybvkxjqz0123456789ETAOINSRHLDCUMFPGWYBVKXJQZ.,=+-*/()?!:'\"\n".indexOf(
      s === "Ġ" ? " " : s === "Ċ" ? "\n" : s,
    );
    return i < 0 ? 1000 + s.charCodeAt(0) : i;
  };
  const ordered = [...symbols].sort((a, b) => rank(a) - rank(b));
  const ids = new Map<string, number>(SPECIAL.map((t, i) => [t, i]));
  for (const s of symbols) ids.set(s, ids.size);
  const merges: string[] = [];
  outer: for (const a of ordered) {
    for (const b of ordered) {
      if (ids.size >= vocab) break outer;
      ids.set(a + b, ids.size);
      merges.push(`${a} ${b}`);
    }
  }
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(ids),
      merges,
    },
  };
  const config = {
    tokenizer_class: "GPT2Tokenizer",
    bos_token: "<|im_start|>",
    eos_token: "<|im_end|>",
    pad_token: "<|im_end|>",
    unk_token: "<|endoftext|>",
    model_max_length: 8192,
    chat_template:
      "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}",
  };
  return { tokenizer, config };
}

/** Uniform weights of standard deviation 0.02 (a ±0.0346 range) from a seeded xorshift. */
function randomTensor(shape: number[], seed: number): StoredTensor {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let s = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    data[i] = ((s >>> 0) / 2 ** 32 - 0.5) * 0.0693;
  }
  return { shape, data };
}

const ones = (n: number): StoredTensor => ({ shape: [n], data: new Float32Array(n).fill(1) });

/** Writes config.json, model.safetensors and the tokenizer into `dir` for `config` (a SmolLM2-like llama). */
export async function writeRandomHfModel(dir: string, config: typeof SMOLLM2_135M): Promise<void> {
  const d = config.hidden_size;
  const hd = d / config.num_attention_heads;
  const kv = config.num_key_value_heads * hd;
  const tensors = new Map<string, StoredTensor>([
    ["model.embed_tokens.weight", randomTensor([config.vocab_size, d], 1)],
  ]);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    const seed = 100 + l * 10;
    tensors.set(`${p}input_layernorm.weight`, ones(d));
    tensors.set(`${p}self_attn.q_proj.weight`, randomTensor([d, d], seed));
    tensors.set(`${p}self_attn.k_proj.weight`, randomTensor([kv, d], seed + 1));
    tensors.set(`${p}self_attn.v_proj.weight`, randomTensor([kv, d], seed + 2));
    tensors.set(`${p}self_attn.o_proj.weight`, randomTensor([d, d], seed + 3));
    tensors.set(`${p}post_attention_layernorm.weight`, ones(d));
    tensors.set(`${p}mlp.gate_proj.weight`, randomTensor([config.intermediate_size, d], seed + 4));
    tensors.set(`${p}mlp.up_proj.weight`, randomTensor([config.intermediate_size, d], seed + 5));
    tensors.set(`${p}mlp.down_proj.weight`, randomTensor([d, config.intermediate_size], seed + 6));
  }
  tensors.set("model.norm.weight", ones(d));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "config.json"), JSON.stringify(config, null, 2));
  await writeFile(join(dir, "model.safetensors"), encodeSafetensors(tensors, { format: "pt" }));
  const { tokenizer, config: tokConfig } = byteLevelTokenizer(config.vocab_size);
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(tokConfig, null, 2));
}
