/**
 * Why a native TensorFlow backend did not load, said as what to install. `@tensorflow/tfjs-node-gpu`
 * 4.x is built against libtensorflow 2.9.1, which wants CUDA 11.2 and cuDNN 8.1: its sonames
 * (libcudart.so.11.0, libcudnn.so.8, libcublas.so.11 …) are not provided by CUDA 12, so a machine with
 * only CUDA 12 cannot run it on the GPU. TensorFlow opens the CUDA libraries lazily: the package then
 * loads, prints "Could not load dynamic library 'libcudart.so.11.0'" from C++, and quietly computes on
 * the CPU; `noGpuDevice` is the message for that case (see backend.ts).
 */

const CUDA_11_2 =
  "libtensorflow 2.9 (tfjs-node-gpu 4.x) needs CUDA 11.2 and cuDNN 8.1 (libcudart.so.11.0, libcublas.so.11, " +
  "libcudnn.so.8; CUDA 12 does not provide these) on LD_LIBRARY_PATH next to the NVIDIA driver";
const INSTEAD = "or use --backend tensorflow (@tensorflow/tfjs-node, CPU) or --backend wasm";

/** Shared libraries of CUDA 11.x / cuDNN 8 that libtensorflow 2.9 opens. */
const CUDA_SONAME = /lib(cudart|cublas|cublasLt|cudnn|cufft|curand|cusolver|cusparse|nvinfer)\.so\.[0-9.]+/;

export function explainNativeFailure(pkg: string, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const gpu = pkg.endsWith("-gpu");
  // The package itself is missing (not one of its own imports, whose message names the package's path).
  const missing =
    text.includes(`Cannot find package '${pkg}'`) || text.includes(`Cannot find module '${pkg}'`);
  if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && missing)
    return gpu
      ? `${pkg} is not installed (npm install ${pkg}; linux-x64 only, and it needs CUDA 11.2 + cuDNN 8.1)`
      : `${pkg} is not installed (npm install ${pkg})`;
  if (text.includes("tfjs_binding.node") && text.includes("can not be found"))
    return (
      `${pkg} is installed without its native addon: its install script downloads libtensorflow 2.9.1 ` +
      `from storage.googleapis.com, which failed or was skipped; run npm rebuild ${pkg} with network access`
    );
  const soname = CUDA_SONAME.exec(text)?.[0];
  if (soname !== undefined) return `${pkg} cannot load ${soname}: ${CUDA_11_2}; ${INSTEAD}`;
  if (/libcuda\.so\.1/.test(text))
    return `${pkg} cannot load libcuda.so.1: no NVIDIA driver is installed; ${INSTEAD}`;
  if (/libtensorflow(_framework)?\.so/.test(text))
    return `${pkg} cannot load libtensorflow: its install did not finish (npm rebuild ${pkg}); ${firstLine(text)}`;
  if (text.includes("NODE_MODULE_VERSION") || text.includes("GLIBC_"))
    return `${pkg} was built for another Node.js or C library (npm rebuild ${pkg}): ${firstLine(text)}`;
  return `${pkg} failed to load: ${firstLine(text)}`;
}

/** tfjs-node-gpu loaded, but TensorFlow registered no GPU device and would run on the CPU. */
export function noGpuDevice(pkg: string): string {
  return `${pkg} loaded but TensorFlow found no usable GPU (see its "Could not load dynamic library" lines above): ${CUDA_11_2}; ${INSTEAD}`;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 300);
}
