import * as tf from "@tensorflow/tfjs-core";
// The union package registers every gradient; tfjs-core's own CommonJS build registers none.
import "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-cpu";
import "@tensorflow/tfjs-backend-wasm";
import { err, ok, type Result } from "../../shared/result.js";
import { BACKENDS, type BackendName } from "./names.js";
import { explainNativeFailure, noGpuDevice } from "./native-errors.js";
import { startWebGpu } from "./webgpu.js";

/** The native bindings register under these packages; both are optional and absent on most machines. */
const NATIVE_PACKAGES: Partial<Record<BackendName, string>> = {
  "tensorflow-gpu": "@tensorflow/tfjs-node-gpu",
  tensorflow: "@tensorflow/tfjs-node",
};

export interface BackendInfo {
  name: BackendName;
  /** Why earlier choices were passed over, for the run log. */
  skipped: string[];
}

/** tfjs-node and tfjs-node-gpu both register as "tensorflow"; the package tells them apart. */
const registeredName = (name: BackendName): string => (name === "tensorflow-gpu" ? "tensorflow" : name);

async function tryBackend(name: BackendName, byName: boolean): Promise<Result<void>> {
  if (name === "webgpu") {
    const gpu = await startWebGpu({ allowSoftware: byName });
    if (!gpu.ok) return err(gpu.error);
  }
  const pkg = NATIVE_PACKAGES[name];
  if (pkg !== undefined) {
    try {
      // A variable specifier keeps bundlers and tsc from requiring the optional package.
      const specifier: string = pkg;
      await import(specifier);
    } catch (e) {
      // tfjs-node-gpu without a GPU leaves TensorFlow's CPU backend registered: use it over wasm.
      if (name !== "tensorflow" || tf.findBackendFactory("tensorflow") === null)
        return err(explainNativeFailure(pkg, e));
    }
  }
  try {
    const ready = await tf.setBackend(registeredName(name));
    if (!ready) return err(`${name} backend failed to initialise`);
    // Without CUDA 11.2 libraries TensorFlow falls back to the CPU silently; say so instead.
    if (
      name === "tensorflow-gpu" &&
      (tf.backend() as { isUsingGpuDevice?: boolean }).isUsingGpuDevice === false
    )
      return err(noGpuDevice(pkg ?? name));
    return ok(undefined);
  } catch (e) {
    return err(`${name} backend failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function isBackendName(name: string): name is BackendName {
  return (BACKENDS as readonly string[]).includes(name);
}

/**
 * Selects the tfjs backend: `requested` when given (an error if it cannot load), otherwise the first of
 * tfjs-node-gpu, webgpu on a hardware adapter (a software one, lavapipe, only when named: wasm is
 * faster), tfjs-node, wasm, cpu that loads. Every training path reads tensors with await, so webgpu
 * runs SFT and RL as the others do.
 */
export async function initBackend(requested?: BackendName): Promise<Result<BackendInfo>> {
  const candidates = requested === undefined ? BACKENDS : [requested];
  const skipped: string[] = [];
  for (const name of candidates) {
    const tried = await tryBackend(name, requested !== undefined);
    if (tried.ok) {
      await tf.ready();
      return ok({ name, skipped });
    }
    skipped.push(tried.error);
  }
  return err(skipped.join("; "));
}
