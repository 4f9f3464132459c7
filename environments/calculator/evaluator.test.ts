import { describe, expect, it } from "vitest";
import { evaluate, formatNumber } from "./evaluator.js";

const value = (src: string) => {
  const r = evaluate(src);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe("calculator evaluator", () => {
  it("follows precedence: 2+3*4 = 2+12 = 14, (2+3)*4 = 5*4 = 20", () => {
    expect(value("2+3*4")).toBe(14);
    expect(value("(2+3)*4")).toBe(20);
  });
  it("powers are right-associative: 2^3^2 = 2^9 = 512; -2^2 = -(2^2) = -4", () => {
    expect(value("2^3^2")).toBe(512);
    expect(value("2**3")).toBe(8);
    expect(value("-2^2")).toBe(-4);
  });
  it("reads percent as /100 and binary % as remainder: 50% of 80 written 80*50% = 40; 17%5 = 2", () => {
    expect(value("80*50%")).toBe(40);
    expect(value("17 % 5")).toBe(2);
  });
  it("reads // as floor division, as in GSM8K's <<560//10=56>>: 560/10 = 56; 7//2 = floor(3.5) = 3; -7//2 = -4", () => {
    expect(value("560//10")).toBe(56);
    expect(value("7//2")).toBe(3);
    expect(value("-7//2")).toBe(-4);
    expect(evaluate("1//0")).toEqual({ ok: false, error: "division by zero" });
  });
  it("accepts × ÷ and thousands commas: 1,200÷4×3 = 300×3 = 900", () => {
    expect(value("1,200÷4×3")).toBe(900);
  });
  it("reports errors instead of throwing", () => {
    expect(evaluate("1/0")).toEqual({ ok: false, error: "division by zero" });
    expect(evaluate("2+").ok).toBe(false);
    expect(evaluate("alert(1)").ok).toBe(false);
    expect(evaluate("(".repeat(200)).ok).toBe(false);
  });
  it("formats without float noise: 0.1+0.2 prints 0.3", () => {
    expect(formatNumber(value("0.1+0.2"))).toBe("0.3");
  });
});
