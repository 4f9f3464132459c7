import { compactVerify, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import type { ReceiptClaims } from "./protocol.js";
import {
  generateSigningJwk,
  importSigningJwk,
  RECEIPT_TYP,
  signReceipt,
  storedReceiptClaims,
  verifyReceipt,
} from "./receipt.js";
import { claimedSuccess } from "./success.js";

const claims: ReceiptClaims = {
  env: "calculator",
  version: "1.0.0",
  contentHash: `sha256:${"ab".repeat(32)}`,
  episodeId: "ep-1",
  task: { split: "test", index: 7 },
  steps: 2,
  return: 1,
  finalReward: 1,
  iat: 1_767_225_600,
};

describe("receipts", () => {
  it("carry the env's success claim; a receipt signed before the claim existed still verifies", async () => {
    const key = await importSigningJwk(await generateSigningJwk());
    // Cut at maxSteps after a step that paid a process reward: a positive final reward, not solved.
    const cut = { ...claims, finalReward: 0.1, success: false };
    const jws = await signReceipt(cut, key);
    expect(await verifyReceipt(jws, key.publicJwk)).toEqual({ ok: true, value: cut });
    expect(storedReceiptClaims(jws)).toEqual(cut);
    expect(claimedSuccess(cut)).toBe(false);
    // `claims` has no success field, as every receipt before it: verifies, and the old rule applies.
    const old = await signReceipt(claims, key);
    const verified = await verifyReceipt(old, key.publicJwk);
    expect(verified.ok && verified.value.success).toBeUndefined();
    expect(verified.ok && claimedSuccess(verified.value)).toBe(true);
    expect(claimedSuccess({ finalReward: 0 })).toBe(false);
    expect(storedReceiptClaims("not.a-receipt.x")).toBeUndefined();
  });

  it("sign and verify with the public JWK; jose agrees it is an EdDSA JWS", async () => {
    const key = await importSigningJwk(await generateSigningJwk());
    const jws = await signReceipt(claims, key);
    expect(await verifyReceipt(jws, key.publicJwk)).toEqual({ ok: true, value: claims });
    const { protectedHeader } = await compactVerify(jws, await importJWK(key.publicJwk, "EdDSA"));
    expect(protectedHeader).toEqual({ alg: "EdDSA", typ: RECEIPT_TYP, kid: key.publicJwk.kid });
  });

  it("fails for a changed payload, a changed signature or another key", async () => {
    const key = await importSigningJwk(await generateSigningJwk());
    const other = await importSigningJwk(await generateSigningJwk());
    const jws = await signReceipt(claims, key);
    const [h, p, s] = jws.split(".") as [string, string, string];
    const payload = btoa(JSON.stringify({ ...claims, return: 5 }))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect((await verifyReceipt(`${h}.${payload}.${s}`, key.publicJwk)).ok).toBe(false);
    const sig = s.startsWith("A") ? `B${s.slice(1)}` : `A${s.slice(1)}`;
    expect((await verifyReceipt(`${h}.${p}.${sig}`, key.publicJwk)).ok).toBe(false);
    expect(await verifyReceipt(jws, other.publicJwk)).toEqual({
      ok: false,
      error: "signature does not verify",
    });
    expect((await verifyReceipt("garbage", key.publicJwk)).ok).toBe(false);
  });

  it("the kid is the RFC 7638 thumbprint, so the same key always has the same kid", async () => {
    const jwk = await generateSigningJwk();
    const [a, b] = await Promise.all([importSigningJwk(jwk), importSigningJwk(jwk)]);
    expect(a.publicJwk.kid).toBe(b.publicJwk.kid);
    expect(a.publicJwk).not.toHaveProperty("d");
    await expect(importSigningJwk({ kty: "oct", k: "abc" })).rejects.toThrow(/Ed25519/);
  });
});
