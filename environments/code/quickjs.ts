import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

/** workerd identifies itself this way; it needs the wasm as an imported module and has no threads. */
export const onWorkerd =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === "Cloudflare-Workers";

const PAGE_BYTES = 64 * 1024;
/** The memory the QuickJS build starts with (its INITIAL_MEMORY): its own data and stack. */
const BASE_BYTES = 16 * 1024 * 1024;
/** Room beyond the program's heap for each runtime's own structures and parser buffers. */
const SLACK_BYTES = 16 * 1024 * 1024;

const instances = new Map<number, Promise<QuickJSWASMModule>>();

async function load(heapBytes: number): Promise<QuickJSWASMModule> {
  // QuickJS's heap limit can't count bytes in this build (emscripten has no malloc_usable_size), so
  // the limit is the wasm memory's own maximum: past it malloc fails and QuickJS throws out of memory.
  const wasmMemory = new WebAssembly.Memory({
    initial: BASE_BYTES / PAGE_BYTES,
    maximum: Math.ceil((BASE_BYTES + heapBytes + SLACK_BYTES) / PAGE_BYTES),
  });
  if (onWorkerd) {
    // workerd cannot compile wasm from bytes, so the binary comes in as a module (CompiledWasm rule).
    const { default: wasmModule } = await import("./quickjs-wasm.js");
    return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory }));
  }
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory }));
}

/**
 * The QuickJS wasm instance shared by every sandbox in this isolate with this heap size (each call
 * still gets its own runtime and context). On Node it loads the package's file, on workerd the
 * imported module.
 */
export function quickjs(heapBytes: number): Promise<QuickJSWASMModule> {
  let loading = instances.get(heapBytes);
  if (!loading) {
    loading = load(heapBytes);
    instances.set(heapBytes, loading);
    loading.catch(() => instances.delete(heapBytes));
  }
  return loading;
}

/** Drops an instance that aborted, so the next call loads a fresh one. */
export function discardQuickJS(heapBytes: number): void {
  instances.delete(heapBytes);
}
