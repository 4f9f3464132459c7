import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash, sha256Hex } from "./content-hash.js";

describe("content hash", () => {
  it("canonical JSON sorts keys at every level and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it("sha256 of a known string: the FIPS 180-2 test vector for 'abc'", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("equal values hash equally whatever the key order; any change changes the hash", async () => {
    const a = await contentHash({ version: "1.0.0", limits: { maxSteps: 8, maxActionChars: 10 } });
    const b = await contentHash({ limits: { maxActionChars: 10, maxSteps: 8 }, version: "1.0.0" });
    const c = await contentHash({ limits: { maxActionChars: 10, maxSteps: 9 }, version: "1.0.0" });
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });
});
