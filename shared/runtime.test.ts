import { describe, expect, it } from "vitest";
import { nodeBuiltin, onNode, onWorkerd } from "./runtime.js";

// The workers project runs shared/runtime.workers.test.ts, the other side of the same detection.
describe("runtime on Node", () => {
  it("is Node and not workerd", () => {
    expect(onNode).toBe(true);
    expect(onWorkerd).toBe(false);
  });

  it("loads Node's built-ins synchronously", () => {
    const crypto = nodeBuiltin<{
      createHash(alg: string): { update(s: string): { digest(e: string): string } };
    }>("node:crypto");
    // SHA-256 of the empty string, the FIPS 180-2 test vector.
    expect(crypto?.createHash("sha256").update("").digest("hex")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });
});
