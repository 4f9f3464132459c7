import type { WebGPUBackend } from "@tensorflow/tfjs-backend-webgpu";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "./backend.js";

/**
 * What Dawn would let go wrong silently: a tensor past the device's binding limit (on lavapipe 128 MiB;
 * Dawn reports the failed dispatch only as an uncaptured error, and the output holds garbage), and any
 * uncaptured device error. The error case poisons the device, so it comes last in a file of its own.
 */
describe("webgpu never computes wrong silently", () => {
  let device: GPUDevice;
  beforeAll(async () => {
    const ready = await initBackend("webgpu");
    if (!ready.ok) throw new Error(ready.error);
    device = (tf.backend() as WebGPUBackend).device;
  });

  it("refuses a kernel that would bind a tensor past maxStorageBufferBindingSize, before dispatch", async () => {
    const limit = device.limits.maxStorageBufferBindingSize;
    // Held on the CPU until a kernel needs it on the GPU.
    const big = tf.tensor1d(new Float32Array(limit / 4 + 1024));
    expect(() => tf.add(big, 1)).toThrow(/past this device's maxStorageBufferBindingSize/);
    big.dispose();
    // The device is fine afterwards: nothing was dispatched.
    expect([...(await tf.add(tf.tensor1d([1, 2]), 1).data())]).toEqual([2, 3]);
  });

  it("refuses a kernel that would bind more buffers than maxStorageBuffersPerShaderStage", () => {
    const limit = device.limits.maxStorageBuffersPerShaderStage;
    expect(limit).toBeLessThan(4096);
    // `limit` inputs and the output: one buffer too many. Large enough to run on the GPU.
    const parts = Array.from({ length: limit }, () => tf.fill([4096], 1));
    expect(() => tf.addN(parts)).toThrow(/past this device's maxStorageBuffersPerShaderStage/);
    tf.dispose(parts);
  });

  it("refuses a synchronous read of a tensor on the GPU with one clear line", async () => {
    // Large enough to run on the GPU (tfjs-webgpu computes small CPU-held tensors on the CPU).
    const onGpu = tf.add(tf.fill([4096], 1), 1);
    expect(() => onGpu.dataSync()).toThrow(
      /^webgpu: a synchronous read \(dataSync\/arraySync\) of a tensor on the GPU is not possible in Node/,
    );
    // The awaited read every training path uses works.
    expect((await onGpu.data())[0]).toBe(2);
    onGpu.dispose();
  });

  it("fails every read after an uncaptured device error, with Dawn's message", async () => {
    // Large enough to run on the GPU (tfjs-webgpu computes small CPU-held tensors on the CPU).
    const before = tf.fill([4096], 2);
    // An invalid buffer (MAP_READ with MAP_WRITE is a validation error): Dawn raises it uncaptured.
    device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
    await expect(before.data()).rejects.toThrow(/^webgpu device error: /);
    // So is every later kernel on the GPU.
    expect(() => tf.add(before, 1)).toThrow(/^webgpu device error: /);
  });
});
