/// <reference path="./wasm.d.ts" />
// workerd cannot compile wasm from bytes at run time, so the QuickJS binary is imported as a module
// (wrangler.toml's CompiledWasm rule). Only loaded on workerd: Node has no loader for `.wasm` imports.
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";

export default wasmModule;
