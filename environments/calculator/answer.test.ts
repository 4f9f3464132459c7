import { describe, expect, it } from "vitest";
import { extractAnswer, sameNumber } from "./answer.js";

describe("final answer extraction (GSM8K rules)", () => {
  it("reads the number after the last ####, stripping commas and $", () => {
    expect(extractAnswer("so the total is 1234.\n#### 1,234")).toBe(1234);
    expect(extractAnswer("#### $5")).toBe(5);
    expect(extractAnswer("#### $1,000,000")).toBe(1_000_000);
    expect(extractAnswer("#### 3 is wrong\n#### 4")).toBe(4);
  });
  it("reads negative and decimal numbers", () => {
    expect(extractAnswer("#### -12")).toBe(-12);
    expect(extractAnswer("#### 2.5")).toBe(2.5);
    expect(extractAnswer("#### -0.75")).toBe(-0.75);
  });
  it("gives nothing without a #### number", () => {
    expect(extractAnswer("the answer is 42")).toBeUndefined();
    expect(extractAnswer("#### forty-two")).toBeUndefined();
    expect(extractAnswer("")).toBeUndefined();
  });
  it("compares numerically with a tolerance for float noise only", () => {
    expect(sameNumber(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameNumber(1234, 1234.5)).toBe(false);
  });
});
