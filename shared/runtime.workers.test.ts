import { describe, expect, it } from "vitest";
import { nodeBuiltin, onNode, onWorkerd } from "./runtime.js";

describe("runtime on workerd", () => {
  it("is workerd and not Node, though nodejs_compat gives it a process", () => {
    expect(typeof (globalThis as { process?: unknown }).process).toBe("object");
    expect(onWorkerd).toBe(true);
    expect(onNode).toBe(false);
  });

  it("offers no Node built-ins, so callers take their WebCrypto and Uint8Array paths", () => {
    expect(nodeBuiltin("node:crypto")).toBeUndefined();
  });
});
