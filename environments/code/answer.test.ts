import { describe, expect, it } from "vitest";
import { finalAnswer } from "./answer.js";

describe("code answers", () => {
  it("reads \\boxed{n} inside <answer>, the last block winning", () => {
    expect(finalAnswer("<answer>\\boxed{42}</answer>")).toBe(42);
    expect(finalAnswer("<answer>it is \\boxed{1,234.5}</answer>")).toBe(1234.5);
    expect(finalAnswer("<answer>\\boxed{1}</answer> then <answer>\\boxed{-7}</answer>")).toBe(-7);
  });
  it("reads #### n as calculator does", () => {
    expect(finalAnswer("so #### 18")).toBe(18);
    expect(finalAnswer("<answer>#### $1,200</answer>")).toBe(1200);
  });
  it("finds nothing in a box outside <answer>, a box without a number, or plain text", () => {
    expect(finalAnswer("\\boxed{42}")).toBeUndefined();
    expect(finalAnswer("<answer>\\boxed{x+1}</answer>")).toBeUndefined();
    expect(finalAnswer("<answer>42</answer>")).toBeUndefined();
  });
});

// code shares calculator's parser, so `#### n` stops at its line here too.
describe("code answers use calculator's one parser", () => {
  it("reads #### n without gluing the next line on", () => {
    expect(finalAnswer("#### 18\n\n2. Janet")).toBe(18); // not 182
    expect(finalAnswer("<answer>#### 5, 6</answer>")).toBe(5); // not 56
  });
  it("reads a bare box or 'The answer is n' only in the flexible format", () => {
    expect(finalAnswer("\\boxed{42}", "flexible")).toBe(42);
    expect(finalAnswer("The answer is 42.", "flexible")).toBe(42);
    expect(finalAnswer("The answer is 42.")).toBeUndefined();
    // The <answer> box wins over a later bare number, in both formats.
    expect(finalAnswer("<answer>\\boxed{7}</answer> (checked with 3 runs)", "flexible")).toBe(7);
  });
});
