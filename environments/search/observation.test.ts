import { describe, expect, it } from "vitest";
import { CUT_MARK, MIN_PASSAGE_CHARS, renderHits, truncateObservation } from "./observation.js";

const hit = (title: string, chars: number) => ({ title, text: "x".repeat(chars), score: 1 });

describe("search observations keep every result visible", () => {
  it("five 800-character passages in 2,000 characters: all five titles show, the best one whole", () => {
    const hits = ["A", "B", "C", "D", "E"].map((t) => hit(t, 800));
    const { text, whole } = renderHits("q", hits, 2000);
    // The old cut of the joined text (5 · (6 + 800) + 4 · 2 = 4,038 characters) kept 2,000: passages
    // 1 and 2 and part of 3; "[4] D" and "[5] E" were not shown at all.
    const old = truncateObservation(
      hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.text}`).join("\n\n"),
      2000,
    );
    expect(old).not.toContain("[4] D");
    for (const [i, t] of ["A", "B", "C", "D", "E"].entries()) expect(text).toContain(`[${i + 1}] ${t}\n`);
    expect(text.length).toBeLessThanOrEqual(2000);
    // A passage below keeps at least its header "[i] T\n" (6 characters), MIN_PASSAGE_CHARS of text,
    // the cut mark and "\n\n": 6 + 100 + 4 + 2 = 112.
    expect(6 + MIN_PASSAGE_CHARS + CUT_MARK.length + 2).toBe(112);
    // [1]: 2,000 − 4·112 − 6 = 1,546 ≥ 800, whole (806 used). [2]: 2,000 − 806 − 3·112 − 6 − 2 = 850
    // ≥ 800, whole (808 more). [3]: 386 left − 2·112 − 8 = 154: cut to 154 − 4 = 150 characters and
    // the mark. [4] and [5]: 104 each, so 100 characters and the mark. 806 + 808 + 162 + 112 + 112 = 2,000.
    expect(whole).toEqual([true, true, false, false, false]);
    expect(text.length).toBe(2000);
    expect(text).toContain(`[2] B\n${"x".repeat(800)}\n\n[3] C\n${"x".repeat(150)}${CUT_MARK}\n\n[4] D\n`);
    expect(text.endsWith(`[5] E\n${"x".repeat(100)}${CUT_MARK}`)).toBe(true);
  });

  it("cuts at a word boundary near the limit, and shows short passages whole wherever they rank", () => {
    const words = { title: "W", text: "word ".repeat(400).trim(), score: 1 };
    const { text, whole } = renderHits("q", [hit("A", 1500), words, hit("S", 50)], 2000);
    expect(whole).toEqual([true, false, true]);
    expect(text).toMatch(/\[2\] W\n(word )+word \[…\]\n\n\[3\] S\n/);
  });

  it("reports no passage whole when titles alone exceed the limit, and then cuts as before", () => {
    const { text, whole } = renderHits("q", [hit("T".repeat(3000), 10)], 2000);
    expect(whole).toEqual([false]);
    expect(text).toContain("[observation truncated: showing 2000 of");
  });
});
