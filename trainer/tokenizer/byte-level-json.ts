/**
 * Hugging Face `tokenizer.json` files for byte-level vocabularies: a BPE model over GPT-2's 256 byte
 * symbols (so id = byte value), a ByteLevel pre-tokenizer and decoder, and added tokens after the
 * bytes; without merges for the byte tokenizer, with merges learned from env text (train-bpe.ts).
 * `@huggingface/tokenizers`, transformers' `PreTrainedTokenizerFast` and the Rust `tokenizers` read it
 * as they read any GPT-2-family tokenizer.
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

/**
 * How a tokenizer with learned merges splits text before BPE: runs of letters, runs of digits, runs
 * of other symbols and runs of whitespace, each its own piece. GPT-2's pattern glues a leading space
 * to a word, so `1973` after a space and `1973` after `<answer>` would be two different tokens; kept
 * apart, a word copied from a tool result into an answer or a query is the same id it was there.
 */
export const WORD_PIECES = String.raw`\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+`;

/** A BPE merge as `tokenizer.json` writes it: the two symbols, in byte-level characters. */
export type Merge = readonly [string, string];

/**
 * A `tokenizer.json` whose ids 0–255 are the bytes and whose `added` tokens follow. Each of `merges`
 * (in rank order) adds the token it makes after those, and text is then split into
 * {@link WORD_PIECES} first; without merges it splits as GPT-2 does, which byte ids do not notice.
 */
export function byteLevelTokenizerJson(
  added: readonly AddedToken[],
  merges: readonly Merge[] = [],
): Record<string, unknown> {
  const vocab = new Map(bytesToUnicode().map((ch, i) => [ch, i]));
  // The Rust tokenizers (and so transformers) ignore an added token's `id` when the model's vocab
  // lacks its text and number it from the vocab's size: merges after the specials would take their ids.
  for (const t of added) vocab.set(t.content, t.id);
  let next = Math.max(255, ...added.map((t) => t.id)) + 1;
  for (const [a, b] of merges) if (!vocab.has(a + b)) vocab.set(a + b, next++);
  const learned = merges.length > 0;
  const byteLevel = { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: !learned };
  const split = { type: "Split", pattern: { Regex: WORD_PIECES }, behavior: "Isolated", invert: false };
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
    pre_tokenizer: learned ? { type: "Sequence", pretokenizers: [split, byteLevel] } : byteLevel,
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
      vocab: Object.fromEntries(vocab),
      merges: merges.map(([a, b]) => [a, b]),
    },
  };
}
