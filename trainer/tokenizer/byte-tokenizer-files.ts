import { byteLevelTokenizerJson, type Merge } from "./byte-level-json.js";
import { BYTE_SPECIALS } from "./byte-tokenizer.js";

/**
 * The chat template that renders what `ByteTokenizer.renderChat` renders: `<|bos|>`, then
 * `<|role|>text<|end|>` per message (tool results wrapped in `<tool_response>`, assistant tool calls
 * in compact Hermes form, tools as compact JSON in an opening system message), then `<|assistant|>`.
 * `tojson(separators=(',', ':'))` is JSON.stringify's spacing in both @huggingface/jinja and
 * transformers (whose default is `", "`/`": "`).
 */
export const BYTE_CHAT_TEMPLATE = [
  "{{- bos_token }}",
  "{%- for m in messages %}",
  "{%- if m.role == 'assistant' %}",
  "{{- '<|assistant|>' }}",
  "{%- set ns = namespace(sep='') %}",
  "{%- if m.content %}{{- m.content }}{%- set ns.sep = '\\n' %}{%- endif %}",
  "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}",
  "{%- set f = tc.function if tc.function is defined else tc %}",
  "{{- ns.sep + '<tool_call>{\"name\":' + (f.name | tojson) + ',\"arguments\":' }}",
  "{%- if f.arguments is string %}{{- f.arguments }}",
  "{%- else %}{{- f.arguments | tojson(separators=(',', ':')) }}{%- endif %}",
  "{{- '}</tool_call>' }}{%- set ns.sep = '\\n' %}",
  "{%- endfor %}{%- endif %}",
  "{%- elif m.role == 'tool' %}",
  "{{- '<|tool|><tool_response>\\n' + m.content + '\\n</tool_response>' }}",
  "{%- elif m.role == 'system' and loop.first and tools %}",
  "{{- '<|system|>' + m.content + '\\nTools: [' }}",
  "{%- for t in tools %}{%- if not loop.first %}{{- ',' }}{%- endif %}",
  "{{- t.function | tojson(separators=(',', ':')) }}{%- endfor %}",
  "{{- ']' }}",
  "{%- else %}",
  "{{- '<|' + m.role + '|>' + m.content }}",
  "{%- endif %}",
  "{{- '<|end|>' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|assistant|>' }}{%- endif %}",
].join("\n");

/** Marks a `tokenizer_config.json` written for the byte tokenizer, so edgegym loads it back as one. */
export const BYTE_TOKENIZER_NAME = "edgegym-byte";

/** Marks a byte tokenizer extended with learned merges; it loads as any Hugging Face tokenizer. */
export const BPE_TOKENIZER_NAME = "edgegym-bpe";

/** Tags the byte tokenizer keeps when decoding (tool markup); the others are control tokens. */
const KEPT = new Set(["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]);

/**
 * `tokenizer.json` + `tokenizer_config.json` expressing the byte tokenizer's ids (bytes 0–255, the
 * specials after them) for tools outside edgegym. The class is `PreTrainedTokenizerFast`, which
 * transformers' `AutoTokenizer` builds from tokenizer.json alone for a llama or qwen3 model; for
 * `model_type: qwen2` transformers 5 builds its Qwen2Tokenizer from the same vocabulary whatever the
 * class says, with NFC normalisation and `<|endoftext|>` as the unknown token unless one is named,
 * so `unk_token` is null: no id is added beyond the model's embedding rows (docs/trainer.md).
 */
export function byteTokenizerFiles(): TokenizerFiles {
  return byteLevelFiles([], BYTE_TOKENIZER_NAME);
}

/**
 * The byte tokenizer with `merges` (from `trainBpe`): the same ids for bytes and specials, the same
 * chat template, and one more id per merged token after the specials. Pieces the merges never saw
 * still encode, byte by byte.
 */
export function bpeTokenizerFiles(merges: readonly Merge[]): TokenizerFiles {
  return byteLevelFiles(merges, BPE_TOKENIZER_NAME);
}

type TokenizerFiles = { "tokenizer.json": unknown; "tokenizer_config.json": unknown };

function byteLevelFiles(merges: readonly Merge[], name: string): TokenizerFiles {
  const added = BYTE_SPECIALS.map((content, i) => ({ id: 256 + i, content, special: !KEPT.has(content) }));
  return {
    "tokenizer.json": byteLevelTokenizerJson(added, merges),
    "tokenizer_config.json": {
      tokenizer_class: "PreTrainedTokenizerFast",
      edgegym_tokenizer: name,
      bos_token: "<|bos|>",
      eos_token: "<|end|>",
      pad_token: "<|pad|>",
      unk_token: null,
      add_bos_token: false,
      clean_up_tokenization_spaces: false,
      model_max_length: 1_000_000_000,
      chat_template: BYTE_CHAT_TEMPLATE,
    },
  };
}
