import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "./base64url.js";

describe("base64url", () => {
  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect([...fromBase64Url(toBase64Url(bytes))]).toEqual([...bytes]);
      }),
    );
  });

  it("refuses non-canonical spellings: unused low bits set, or a length of 1 mod 4", () => {
    // One byte 0xff is 11111111: "_w" carries 111111 11|0000; "_x" sets an unused bit (0001).
    expect([...fromBase64Url("_w")]).toEqual([255]);
    expect(() => fromBase64Url("_x")).toThrow(/canonical/);
    // Two bytes 0xffff: "__8" is 111111 111111 1111|00; "__9" sets an unused bit (01).
    expect([...fromBase64Url("__8")]).toEqual([255, 255]);
    expect(() => fromBase64Url("__9")).toThrow(/canonical/);
    expect(() => fromBase64Url("abcde")).toThrow(/canonical/);
    expect(() => fromBase64Url("ab=")).toThrow(/canonical/);
    expect(() => fromBase64Url("a+b/")).toThrow(/canonical/);
  });

  it("accepts exactly the texts that are the encoding of their own decoding", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{0,12}$/), (text) => {
        let canonical: boolean;
        try {
          canonical = toBase64Url(fromBase64Url(text)) === text;
        } catch {
          canonical = false;
        }
        // The reference: Node's lenient decoder, re-encoded.
        const lenient = Buffer.from(text, "base64url");
        expect(canonical).toBe(text.length % 4 !== 1 && lenient.toString("base64url") === text);
      }),
    );
  });
});
