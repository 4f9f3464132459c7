/** Under wrangler's `CompiledWasm` rule, importing a `.wasm` file gives a compiled module. */
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
