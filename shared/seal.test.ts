import { EncryptJWT, jwtDecrypt } from "jose";
import { describe, expect, it } from "vitest";
import { deriveSealKey, seal, unseal } from "./seal.js";

const SECRET = "a-session-secret-of-enough-length";

describe("seal / unseal", () => {
  it("round-trips a payload and stamps iat and exp", async () => {
    const key = await deriveSealKey(SECRET, "session:calc");
    const now = Date.UTC(2026, 0, 1);
    const token = await seal({ a: 1, nested: { b: [1, 2] } }, key, 60, now);
    const opened = await unseal(token, key, now + 59_000);
    // iat = 2026-01-01T00:00:00Z in seconds = 1767225600; exp = iat + 60 = 1767225660
    expect(opened).toEqual({
      ok: true,
      value: { a: 1, nested: { b: [1, 2] }, iat: 1767225600, exp: 1767225660 },
    });
  });

  it("is a standard compact JWE: jose opens ours and we open jose's", async () => {
    const key = await deriveSealKey(SECRET, "session:calc");
    const webKey = await crypto.subtle.importKey("raw", key.raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    const ours = await seal({ x: "y" }, key, 60);
    expect((await jwtDecrypt(ours, webKey)).payload).toMatchObject({ x: "y" });
    const theirs = await new EncryptJWT({ z: 3 })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .setExpirationTime("1m")
      .encrypt(webKey);
    expect(await unseal(theirs, key)).toMatchObject({ ok: true, value: { z: 3 } });
  });

  it("expires exactly at exp: valid one second before, expired at it", async () => {
    const key = await deriveSealKey(SECRET, "p");
    const now = 1_700_000_000_000;
    const token = await seal({}, key, 10, now);
    expect((await unseal(token, key, now + 9_000)).ok).toBe(true);
    expect(await unseal(token, key, now + 10_000)).toEqual({ ok: false, error: "expired" });
  });

  it("rejects tampering, truncation, other purposes and other secrets as invalid", async () => {
    const key = await deriveSealKey(SECRET, "session:calc");
    const token = await seal({ a: 1 }, key, 60);
    const parts = token.split(".");
    const flip = (s: string) =>
      s[5] === "A" ? `${s.slice(0, 5)}B${s.slice(6)}` : `${s.slice(0, 5)}A${s.slice(6)}`;
    const invalid = { ok: false, error: "invalid" };
    for (const i of [0, 2, 3, 4]) {
      const bad = [...parts];
      bad[i] = flip(bad[i] ?? "");
      expect(await unseal(bad.join("."), key)).toEqual(invalid);
    }
    expect(await unseal(token.slice(0, -3), key)).toEqual(invalid);
    expect(await unseal("", key)).toEqual(invalid);
    expect(await unseal("a.b.c.d.e", key)).toEqual(invalid);
    expect(await unseal(token, await deriveSealKey(SECRET, "session:other"))).toEqual(invalid);
    expect(await unseal(token, await deriveSealKey(`${SECRET}!`, "session:calc"))).toEqual(invalid);
  });

  it("derives the same key from the same secret and purpose, and refuses short secrets", async () => {
    const [a, b] = await Promise.all([deriveSealKey(SECRET, "p"), deriveSealKey(SECRET, "p")]);
    expect(a.raw).toEqual(b.raw);
    expect(a.raw).toHaveLength(32);
    await expect(deriveSealKey("short", "p")).rejects.toThrow(/at least 16/);
  });

  it("never reuses an IV across many tokens", async () => {
    const key = await deriveSealKey(SECRET, "p");
    const ivs = await Promise.all(
      Array.from({ length: 600 }, async () => (await seal({}, key, 60)).split(".")[2]),
    );
    expect(new Set(ivs).size).toBe(600);
  });
});
