import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { initBackend, isBackendName } from "./backend.js";
import { BACKENDS } from "./names.js";

describe("backend selection", () => {
  it("uses the requested backend", async () => {
    for (const name of ["cpu", "wasm"] as const) {
      const got = await initBackend(name);
      expect(got).toEqual({ ok: true, value: { name, skipped: [] } });
      expect(tf.getBackend()).toBe(name);
    }
  });

  it("takes the first that loads, in order, and says why earlier ones were passed over", async () => {
    const got = await initBackend();
    if (!got.ok) throw new Error(got.error);
    const at = BACKENDS.indexOf(got.value.name);
    expect(got.value.skipped).toHaveLength(at);
    expect(tf.getBackend()).toBe(got.value.name === "tensorflow-gpu" ? "tensorflow" : got.value.name);
  });

  it("knows the --backend names", () => {
    expect(BACKENDS.every(isBackendName)).toBe(true);
    expect(isBackendName("webgl")).toBe(false);
  });
});
