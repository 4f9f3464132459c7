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
