import { describe, expect, it } from "vitest";
import { explainNativeFailure, noGpuDevice } from "./native-errors.js";

const GPU = "@tensorflow/tfjs-node-gpu";

/** An Error with Node's `code`, as the loader throws it. */
const nodeError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("what to install when a native backend does not load", () => {
  it("names a package that is not installed, from the loader's real error", async () => {
    // This machine has no tfjs-node-gpu (its install needs a download); the import's own error.
    const specifier: string = GPU;
    const real = await import(specifier).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (real === undefined)
      return expect.fail(`${GPU} is installed here; the case needs a machine without it`);
    expect(explainNativeFailure(GPU, real)).toBe(
      `${GPU} is not installed (npm install ${GPU}; linux-x64 only, and it needs CUDA 11.2 + cuDNN 8.1)`,
    );
    // A dependency of an installed package missing is not "not installed".
    const inner = nodeError(
      `Cannot find package '@mapbox/node-pre-gyp' imported from /app/node_modules/${GPU}/dist/index.js`,
      "ERR_MODULE_NOT_FOUND",
    );
    expect(explainNativeFailure(GPU, inner)).toBe(
      `${GPU} failed to load: Cannot find package '@mapbox/node-pre-gyp' imported from /app/node_modules/${GPU}/dist/index.js`,
    );
  });

  it("says the native addon was never downloaded, from tfjs-node-gpu 4.22's own message", () => {
    // dist/index.js of the package, when lib/napi-v8/tfjs_binding.node is missing.
    const path = `/app/node_modules/${GPU}/lib/napi-v8/tfjs_binding.node`;
    const message =
      `The Node.js native addon module (tfjs_binding.node) can not be found at path: ${path}. \n` +
      `Please run command 'npm rebuild @tensorflow/tfjs-node-gpu --build-addon-from-source' to rebuild the native addon module.`;
    expect(explainNativeFailure(GPU, new Error(message))).toBe(
      `${GPU} is installed without its native addon: its install script downloads libtensorflow 2.9.1 from ` +
        `storage.googleapis.com, which failed or was skipped; run npm rebuild ${GPU} with network access`,
    );
  });

  it("maps a missing CUDA 11 library (a CUDA 12 machine) to CUDA 11.2 + cuDNN 8.1 or another backend", () => {
    const want = (soname: string) =>
      `${GPU} cannot load ${soname}: libtensorflow 2.9 (tfjs-node-gpu 4.x) needs CUDA 11.2 and cuDNN 8.1 ` +
      "(libcudart.so.11.0, libcublas.so.11, libcudnn.so.8; CUDA 12 does not provide these) on LD_LIBRARY_PATH " +
      "next to the NVIDIA driver; or use --backend tensorflow (@tensorflow/tfjs-node, CPU) or --backend wasm";
    // process.dlopen's wording (ERR_DLOPEN_FAILED) for each soname libtensorflow 2.9 asks for.
    for (const soname of ["libcudart.so.11.0", "libcudnn.so.8", "libcublasLt.so.11"]) {
      const e = nodeError(
        `${soname}: cannot open shared object file: No such file or directory`,
        "ERR_DLOPEN_FAILED",
      );
      expect(explainNativeFailure(GPU, e)).toBe(want(soname));
    }
    const driver = nodeError(
      "libcuda.so.1: cannot open shared object file: No such file or directory",
      "ERR_DLOPEN_FAILED",
    );
    expect(explainNativeFailure(GPU, driver)).toMatch(
      /^@tensorflow\/tfjs-node-gpu cannot load libcuda\.so\.1: no NVIDIA driver/,
    );
  });

  it("says what it could not classify in one line, and explains the silent CPU fallback", () => {
    const odd = new Error("something new\n    at stack line");
    expect(explainNativeFailure("@tensorflow/tfjs-node", odd)).toBe(
      "@tensorflow/tfjs-node failed to load: something new",
    );
    expect(
      explainNativeFailure(
        "@tensorflow/tfjs-node",
        nodeError("Cannot find module '@tensorflow/tfjs-node'", "MODULE_NOT_FOUND"),
      ),
    ).toBe("@tensorflow/tfjs-node is not installed (npm install @tensorflow/tfjs-node)");
    expect(noGpuDevice(GPU)).toContain("loaded but TensorFlow found no usable GPU");
    expect(noGpuDevice(GPU)).toContain("CUDA 11.2 and cuDNN 8.1");
  });
});
