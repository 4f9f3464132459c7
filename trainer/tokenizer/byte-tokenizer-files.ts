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
 * The Python module a folder names in `auto_map`. transformers 5 distrusts the
 * `tokenizer_class` of a `model_type: qwen2` folder and builds its `Qwen2Tokenizer`, which rebuilds the
 * pipeline from the vocabulary with an NFC normaliser and Qwen's split pattern; an `auto_map` is
 * the one thing that skips that, and then `AutoTokenizer` reads `tokenizer.json` as written: as
 * `PreTrainedTokenizerFast` (the `tokenizer_class`) by default, as this class with
 * `trust_remote_code=True` (without the module that would fail). It adds nothing to the file.
 */
export const TOKENIZER_MODULE = "tokenization_edgegym.py";

const TOKENIZER_MODULE_SOURCE = `"""edgegym's byte-level tokenizer: the folder's tokenizer.json as written."""

from transformers import PreTrainedTokenizerFast


class EdgegymTokenizer(PreTrainedTokenizerFast):
    """No normaliser, split pattern or token is added to tokenizer.json, whatever the model type."""
`;

const AUTO_MAP = { AutoTokenizer: [null, "tokenization_edgegym.EdgegymTokenizer"] };

/**
 * `tokenizer.json` + `tokenizer_config.json` (+ {@link TOKENIZER_MODULE}) expressing the byte
 * tokenizer's ids (bytes 0–255, the specials after them) for tools outside edgegym. `unk_token` is
 * null: transformers otherwise adds `<|endoftext|>` as one more id, past the model's embedding rows.
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

type TokenizerFiles = {
  "tokenizer.json": unknown;
  "tokenizer_config.json": Record<string, unknown>;
  [TOKENIZER_MODULE]: string;
};

/**
 * What to write for a loaded tokenizer's `files` in a folder of `modelType`: with the `auto_map` and
 * module of {@link byteTokenizerFiles} (and `PreTrainedTokenizerFast`, so transformers reads
 * tokenizer.json as edgegym does) for a learned BPE, also one written before they were, and for any
 * tokenizer under `qwen2`, whose class transformers would otherwise replace; else as they are. A
 * config with an `auto_map` of its own is left alone.
 */
export function portableFiles(
  files: { "tokenizer.json": unknown; "tokenizer_config.json": unknown },
  modelType: string,
): Record<string, unknown> {
  const config = files["tokenizer_config.json"] as Record<string, unknown>;
  const learned = config.edgegym_tokenizer === BPE_TOKENIZER_NAME;
  if (!learned && (modelType !== "qwen2" || config.auto_map !== undefined)) return files;
  return {
    ...files,
    "tokenizer_config.json": { ...config, tokenizer_class: "PreTrainedTokenizerFast", auto_map: AUTO_MAP },
    [TOKENIZER_MODULE]: TOKENIZER_MODULE_SOURCE,
  };
}

function byteLevelFiles(merges: readonly Merge[], name: string): TokenizerFiles {
  const added = BYTE_SPECIALS.map((content, i) => ({ id: 256 + i, content, special: !KEPT.has(content) }));
  return {
    "tokenizer.json": byteLevelTokenizerJson(added, merges),
    "tokenizer_config.json": {
      tokenizer_class: "PreTrainedTokenizerFast",
      auto_map: AUTO_MAP,
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
    [TOKENIZER_MODULE]: TOKENIZER_MODULE_SOURCE,
  };
}
