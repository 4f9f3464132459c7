import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it, vi } from "vitest";
import { initBackend } from "./backend.js";
import { noGpuDevice } from "./native-errors.js";

/**
 * tfjs-node-gpu on a machine without CUDA 11.2 (e.g. CUDA 12 only): the package loads, registers the
 * "tensorflow" backend and runs it on the CPU, with `isUsingGpuDevice` false. Stood in for by a
 * module that registers a CPU backend with that flag, as the real package would.
 */
vi.mock("@tensorflow/tfjs-node-gpu", async () => {
  // vi.mock is hoisted above the imports, so the factory imports what it needs itself.
  const core = await import("@tensorflow/tfjs-core");
  const { MathBackendCPU: Cpu } = await import("@tensorflow/tfjs-backend-cpu");
  class CpuOnlyTensorFlow extends Cpu {
    readonly isUsingGpuDevice = false;
  }
  core.registerBackend("tensorflow", () => new CpuOnlyTensorFlow());
  return {};
});

// And no WebGPU adapter either (next in the order), whatever this machine has.
const NO_ADAPTER = "webgpu: no adapter (stood in)";
vi.mock("./webgpu.js", async () => ({ startWebGpu: async () => ({ ok: false, error: NO_ADAPTER }) }));

describe("tensorflow-gpu without a usable GPU", () => {
  it("is not reported as a GPU backend: the reason is logged and TensorFlow's CPU backend is taken", async () => {
    const got = await initBackend();
    expect(got).toEqual({
      ok: true,
      value: { name: "tensorflow", skipped: [noGpuDevice("@tensorflow/tfjs-node-gpu"), NO_ADAPTER] },
    });
    expect(tf.getBackend()).toBe("tensorflow");
  });

  it("fails when asked for by name, saying what to install", async () => {
    const got = await initBackend("tensorflow-gpu");
    expect(got).toEqual({ ok: false, error: noGpuDevice("@tensorflow/tfjs-node-gpu") });
  });
});
