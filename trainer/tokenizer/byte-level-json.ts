/**
 * Hugging Face `tokenizer.json` files for byte-level vocabularies: a BPE model without merges over
 * GPT-2's 256 byte symbols (so id = byte value), a ByteLevel pre-tokenizer and decoder, and added
 * tokens after the bytes. `@huggingface/tokenizers`, transformers' `PreTrainedTokenizerFast` and
 * the Rust `tokenizers` read it as they read any GPT-2-family tokenizer.
 */

export type AddedToken = {
  id: number;
  content: string;
  /** Special tokens are dropped by `decode(…, skip_special_tokens=True)`; others are kept. */
  special: boolean;
};

/** GPT-2's byte → printable character table (`bytes_to_unicode`), as byte-level BPE vocabularies use. */
export function bytesToUnicode(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  let extra = 0;
  return [...Array(256).keys()].map((b) => String.fromCharCode(printable(b) ? b : 256 + extra++));
}

/** A `tokenizer.json` whose ids 0–255 are the bytes and whose `added` tokens follow. */
export function byteLevelTokenizerJson(added: readonly AddedToken[]): Record<string, unknown> {
  const byteLevel = { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true };
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: added.map((t) => ({
      id: t.id,
      content: t.content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: t.special,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: null,
    decoder: byteLevel,
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(bytesToUnicode().map((ch, i) => [ch, i])),
      merges: [],
    },
  };
}
