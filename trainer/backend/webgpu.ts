import { existsSync, readdirSync } from "node:fs";
import * as tf from "@tensorflow/tfjs-core";
import { err, ok, type Result } from "../../shared/result.js";

/** The adapter Dawn chose, for the run log and the device check. */
export interface WebGpuAdapter {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A software adapter (lavapipe, SwiftShader): correct, but slower than the wasm backend. */
  software: boolean;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxStorageBuffersPerShaderStage: number;
}

/** Where the Vulkan loader looks for drivers when neither VK_ICD_FILENAMES nor VK_DRIVER_FILES is set. */
const ICD_DIRS = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"];

/** Why Dawn found no adapter, as what to install: it says so only on stderr, in its own words. */
export function noAdapter(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.VK_DRIVER_FILES ?? env.VK_ICD_FILENAMES;
  const icds = ICD_DIRS.flatMap((d) =>
    existsSync(d) ? readdirSync(d).filter((f) => f.endsWith(".json")) : [],
  );
  const seen =
    named !== undefined
      ? `the Vulkan driver named by ${env.VK_DRIVER_FILES !== undefined ? "VK_DRIVER_FILES" : "VK_ICD_FILENAMES"} (${named}) gave none`
      : icds.length === 0
        ? "no Vulkan driver (ICD) is installed"
        : `the installed Vulkan drivers (${icds.join(", ")}) gave none`;
  return (
    `webgpu: Dawn found no GPU adapter: ${seen}; on NVIDIA install libvulkan1 and the driver's ` +
    "nvidia_icd.json (in a container, NVIDIA_DRIVER_CAPABILITIES must include graphics), or run " +
    ".ci/lavapipe.sh for a CPU Vulkan driver (see docs/trainer.md)"
  );
}

let started: Promise<Result<WebGpuAdapter>> | undefined;

/**
 * Registers tfjs's "webgpu" backend on Dawn's Node binding (the `webgpu` package). A software adapter
 * is refused unless `allowSoftware` (an explicit `--backend webgpu`), so picking a backend in order
 * never lands on a CPU rasteriser. The device is opened once per process and shared by every call.
 */
export function startWebGpu(opts: { allowSoftware: boolean }): Promise<Result<WebGpuAdapter>> {
  started ??= openDevice();
  return started.then((s) =>
    s.ok && s.value.software && !opts.allowSoftware
      ? err(`webgpu: only a software adapter (${s.value.description}), slower than wasm; ask for it by name`)
      : s,
  );
}

async function openDevice(): Promise<Result<WebGpuAdapter>> {
  let dawn: typeof import("webgpu");
  try {
    dawn = await import("webgpu");
  } catch (e) {
    return err(
      `webgpu: Dawn's binding did not load: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`,
    );
  }
  // tfjs-webgpu reads GPUBufferUsage, GPUMapMode … as globals, as in a browser; Node has none of them.
  for (const [key, value] of Object.entries(dawn.globals))
    if (!(key in globalThis))
      Object.defineProperty(globalThis, key, { value, configurable: true, writable: true });
  const gpu = dawn.create([]);
  const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  if (adapter === null) return err(noAdapter());
  const limits = adapter.limits;
  // The limits tfjs-webgpu asks for itself (its own factory needs navigator.gpu, which Node lacks).
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
      maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
      maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
      maxBufferSize: limits.maxBufferSize,
      maxComputeWorkgroupSizeX: limits.maxComputeWorkgroupSizeX,
      maxComputeInvocationsPerWorkgroup: limits.maxComputeInvocationsPerWorkgroup,
      // Beyond tfjs's own list: AddN binds all its inputs at once (26 gradients for a 2-layer model).
      maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
    },
  });
  let failure: string | undefined;
  device.addEventListener("uncapturederror", (event) => {
    const message = (event as GPUUncapturedErrorEvent).error.message;
    failure ??= message.split("\n")[0];
    console.error(`webgpu device error: ${message}`);
  });
  void device.lost.then((info) => {
    if (info.reason !== "destroyed") failure ??= `device lost: ${info.message}`;
  });
  // Imported before navigator.gpu exists, so the package skips registering its own factory (which
  // would open a second device); the backend's constructor then checks navigator.gpu is there.
  const { GuardedWebGpuBackend } = await import("./webgpu-guard.js");
  exposeGpu(gpu);
  const backend = new GuardedWebGpuBackend(device, adapter.info, {
    bindingLimit: device.limits.maxStorageBufferBindingSize,
    buffersPerStage: device.limits.maxStorageBuffersPerShaderStage,
    failure: () => failure,
  });
  tf.registerBackend("webgpu", () => backend);
  const info = adapter.info;
  return ok({
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    software: (info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter === true,
    maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
    maxBufferSize: device.limits.maxBufferSize,
    maxStorageBuffersPerShaderStage: device.limits.maxStorageBuffersPerShaderStage,
  });
}

/** Node ≥ 21 has a navigator without gpu (and assigning globalThis.navigator throws); Node 20 has none. */
function exposeGpu(gpu: GPU): void {
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav === undefined)
    Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true });
  else Object.defineProperty(nav, "gpu", { value: gpu, configurable: true });
}
