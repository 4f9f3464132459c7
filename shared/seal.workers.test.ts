import { describe, expect, it } from "vitest";
import { deriveSealKey, seal, unseal } from "./seal.js";

describe("sealed tokens on workerd (WebCrypto)", () => {
  it("every token of a burst of concurrent seals opens: the pooled IV is encoded before any await", async () => {
    const key = await deriveSealKey("a-session-secret-of-some-length", "session:test");
    // 1,000 seals in flight draw 1,000 IVs, refilling the 256-IV pool three times while the first
    // encryptions are still awaiting WebCrypto.
    const tokens = await Promise.all(Array.from({ length: 1_000 }, (_, i) => seal({ i }, key, 60)));
    const opened = await Promise.all(tokens.map((t) => unseal(t, key)));
    expect(opened.filter((o) => !o.ok)).toEqual([]);
    expect(opened.map((o) => (o.ok ? o.value.i : -1))).toEqual(tokens.map((_, i) => i));
  });
});
