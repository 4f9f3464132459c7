import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

const PAGE_BYTES = 64 * 1024;
/** The memory the QuickJS build starts with (its INITIAL_MEMORY): its own data and stack. */
const BASE_BYTES = 16 * 1024 * 1024;
/** Room beyond the program's heap for each runtime's own structures and parser buffers. */
const SLACK_BYTES = 16 * 1024 * 1024;

const instances = new Map<number, Promise<QuickJSWASMModule>>();

/**
 * The QuickJS binary as a compiled module, for runtimes that cannot compile wasm from bytes (workerd,
 * where it is imported through wrangler's CompiledWasm rule). The caller decides, not this file: it
 * also runs in Node's sandbox threads, which load it without a TypeScript resolver (packages only).
 */
export type WasmModuleSource = () => Promise<WebAssembly.Module>;

async function load(
  heapBytes: number,
  wasmModuleSource: WasmModuleSource | undefined,
): Promise<QuickJSWASMModule> {
  // QuickJS's heap limit can't count bytes in this build (emscripten has no malloc_usable_size), so
  // the limit is the wasm memory's own maximum: past it malloc fails and QuickJS throws out of memory.
  const wasmMemory = new WebAssembly.Memory({
    initial: BASE_BYTES / PAGE_BYTES,
    maximum: Math.ceil((BASE_BYTES + heapBytes + SLACK_BYTES) / PAGE_BYTES),
  });
  if (wasmModuleSource) {
    const wasmModule = await wasmModuleSource();
    return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory }));
  }
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory }));
}

/**
 * The QuickJS wasm instance shared by every sandbox in this isolate with this heap size (each call
 * still gets its own runtime and context). It loads the package's file unless given the binary as
 * a module (on workerd).
 */
export function quickjs(heapBytes: number, wasmModuleSource?: WasmModuleSource): Promise<QuickJSWASMModule> {
  let loading = instances.get(heapBytes);
  if (!loading) {
    loading = load(heapBytes, wasmModuleSource);
    instances.set(heapBytes, loading);
    loading.catch(() => instances.delete(heapBytes));
  }
  return loading;
}

/** Drops an instance that aborted, so the next call loads a fresh one. */
export function discardQuickJS(heapBytes: number): void {
  instances.delete(heapBytes);
}
