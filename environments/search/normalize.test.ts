import { describe, expect, it } from "vitest";
import {
  exactMatch,
  extractAnswer,
  f1Score,
  normalizeAnswer,
  pySplit,
  pyStrip,
  scoreAnswer,
} from "./normalize.js";

// Expected values are what Python 3 prints for hotpot_evaluate_v1.normalize_answer on the same input.
describe("HotpotQA normalization", () => {
  it("lowercases, drops ASCII punctuation and the articles, collapses whitespace", () => {
    expect(normalizeAnswer("The Eiffel Tower!")).toBe("eiffel tower");
    expect(normalizeAnswer("  U.S.A.  ")).toBe("usa");
    expect(normalizeAnswer("an apple a  day")).toBe("apple day");
    expect(normalizeAnswer("l'homme")).toBe("lhomme");
  });

  it("treats non-ASCII letters as word characters, like Python's \\b (JavaScript's \\b would strip the a)", () => {
    expect(normalizeAnswer("Aé")).toBe("aé");
    expect(normalizeAnswer("A é")).toBe("é");
    expect(normalizeAnswer("Café the Über")).toBe("café über");
    expect(normalizeAnswer("ánd the")).toBe("ánd");
  });

  it("keeps non-ASCII punctuation, as string.punctuation is ASCII only", () => {
    expect(normalizeAnswer("Rock–paper")).toBe("rock–paper");
    expect(normalizeAnswer("«Hello»")).toBe("«hello»");
  });

  it("a combining mark is not a word character in Python, so 'the' + U+0301 loses its 'the'", () => {
    expect(normalizeAnswer("the\u0301 end")).toBe("\u0301 end");
  });

  it("splits on Python's whitespace: NEL (U+0085) and U+001F separate, U+FEFF does not", () => {
    expect(normalizeAnswer("new\u0085york")).toBe("new york");
    expect(pySplit("a\u001fb\u3000c")).toEqual(["a", "b", "c"]);
    expect(normalizeAnswer("new\ufeffyork")).toBe("new\ufeffyork");
  });
});

describe("EM and F1", () => {
  it("exact match after normalization", () => {
    expect(exactMatch("the Beatles.", "Beatles")).toBe(1);
    expect(exactMatch("Beatles band", "Beatles")).toBe(0);
  });

  it("F1 over tokens: 'the big red dog' vs 'red dog' → P = 2/3, R = 2/2, F1 = 2·(2/3)·1/(2/3 + 1) = 0.8", () => {
    expect(f1Score("the big red dog", "red dog")).toBeCloseTo(0.8, 12);
  });

  it("counts repeated tokens as a multiset", () => {
    // 'b b b' vs 'b': common 1 → P = 1/3, R = 1/1 → F1 = 2·(1/3)·1 / (4/3) = 0.5
    expect(f1Score("b b b", "b")).toBeCloseTo(0.5, 12);
    // 'a a b' loses its articles → [b] vs [b, b]: P = 1, R = 1/2 → F1 = 2·1·(1/2) / (3/2) = 2/3
    expect(f1Score("a a b", "b b")).toBeCloseTo(2 / 3, 12);
  });

  it("yes/no/noanswer score 0 unless identical", () => {
    expect(f1Score("yes", "yes it is")).toBe(0);
    expect(f1Score("no", "no")).toBe(1);
  });

  it("the best over aliases counts", () => {
    expect(scoreAnswer("NYC", ["New York City", "NYC"])).toEqual({ em: 1, f1: 1 });
    expect(scoreAnswer("São Paulo city", ["São Paulo"]).em).toBe(0);
    // 'são paulo city' vs 'são paulo': P = 2/3, R = 1 → F1 = 0.8
    expect(scoreAnswer("São Paulo city", ["São Paulo"]).f1).toBeCloseTo(0.8, 12);
  });
});

describe("extractAnswer", () => {
  it("takes the last <answer> block, trimmed", () => {
    expect(extractAnswer("think <answer>x</answer> more <answer> Paris </answer>")).toBe("Paris");
    expect(extractAnswer("<ANSWER>multi\nline</ANSWER>")).toBe("multi\nline");
    expect(extractAnswer("no tags here")).toBeUndefined();
  });
});

// JavaScript's trim() also strips U+FEFF, which Python's str.strip() keeps; the official
// script then scores "\ufeffParis" 0 against "Paris", and so must we.
describe("extractAnswer strips exactly what Python's str.strip() strips", () => {
  it("keeps a byte-order mark, so the answer scores 0 as in the official script", () => {
    const answer = extractAnswer("<answer>\ufeffParis</answer>");
    expect(answer).toBe("\ufeffParis");
    expect(scoreAnswer(answer ?? "", ["Paris"])).toEqual({ em: 0, f1: 0 });
  });
  it("strips Python's whitespace at both ends, U+0085, U+001F and U+3000 included", () => {
    expect(pyStrip("\u0085\u001f Paris \u3000\t\n")).toBe("Paris");
    expect(extractAnswer("<answer>\u00a0 New York\u2029</answer>")).toBe("New York");
    expect(pyStrip("\ufeff x \ufeff")).toBe("\ufeff x \ufeff");
    expect(pyStrip("")).toBe("");
  });
});
