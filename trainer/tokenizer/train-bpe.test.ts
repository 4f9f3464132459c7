import { Tokenizer as HfCore } from "@huggingface/tokenizers";
import { describe, expect, it } from "vitest";
import { bpeTokenizerFiles } from "./byte-tokenizer-files.js";
import { pieceCounts, trainBpe } from "./train-bpe.js";

describe("pieceCounts", () => {
  it("splits letters, digits, other symbols and whitespace apart, in byte-level characters", () => {
    // "born 1973 (born)" → "born", " ", "1973", " ", "(", "born", ")"; GPT-2's table writes the
    // space byte 0x20 as "Ġ", and "é" (bytes C3 A9) as "Ã©".
    const counts = pieceCounts(["born 1973 (born)", "é"]);
    expect(Object.fromEntries(counts)).toEqual({ born: 2, Ġ: 2, "1973": 1, "(": 1, ")": 1, "Ã©": 1 });
  });
});

describe("trainBpe", () => {
  // "low lower lowest": pieces low, lower, lowest (and two single-symbol spaces). Pair counts:
  // l·o 3, o·w 3, w·e 2, e·r 1, e·s 1, s·t 1.
  const counts = pieceCounts(["low lower lowest"]);

  it("merges the most frequent pair first, breaking ties by the pair that sorts first", () => {
    // 1. l·o and o·w tie at 3; "l" sorts before "o", so (l, o).
    // 2. now lo·w 3, w·e 2 → (lo, w).
    // 3. now low·e 2 (lower, lowest), e·r 1, e·s 1, s·t 1 → (low, e).
    // 4. every pair left occurs once, under the default minCount of 2: training stops at 3 merges.
    expect(trainBpe(counts, { merges: 10 })).toEqual([
      ["l", "o"],
      ["lo", "w"],
      ["low", "e"],
    ]);
  });

  it("stops at the number of merges asked for, and takes pairs seen once when minCount is 1", () => {
    expect(trainBpe(counts, { merges: 2 })).toHaveLength(2);
    // After the three merges above: lowe·r 1, lowe·s 1, s·t 1 → "lowe" "r" sorts first.
    expect(trainBpe(counts, { merges: 4, minCount: 1 })[3]).toEqual(["lowe", "r"]);
  });

  it("counts a piece as often as it occurs", () => {
    // "ab" ×3 against "cd" ×2: a·b wins although both pieces are one word each.
    expect(trainBpe(pieceCounts(["ab ab ab cd cd"]), { merges: 1 })).toEqual([["a", "b"]]);
  });
});

describe("bpeTokenizerFiles", () => {
  const files = bpeTokenizerFiles([
    ["l", "o"],
    ["lo", "w"],
    ["low", "e"],
  ]);
  const core = new HfCore(files["tokenizer.json"] as object, files["tokenizer_config.json"] as object);

  it("puts the merged tokens after the bytes (0–255) and the 12 specials (256–267)", () => {
    expect(core.token_to_id("lo")).toBe(268);
    expect(core.token_to_id("low")).toBe(269);
    expect(core.token_to_id("lowe")).toBe(270);
  });

  it("encodes with the merges, keeps specials whole, and decodes back to the text", () => {
    // "low" → 269; " " → byte 32; "lowest" → lowe (270), s (115), t (116); <tool_call> is special 264.
    const text = "<tool_call>low lowest";
    const ids = core.encode(text, { add_special_tokens: false }).ids;
    expect(ids).toEqual([264, 269, 32, 270, 115, 116]);
    expect(core.decode(ids, { skip_special_tokens: false })).toBe(text);
  });
});
