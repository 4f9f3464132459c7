// A worker thread starts without the TypeScript loader its parent runs under (tsx, or vitest's), so it
// registers tsx before loading the worker's TypeScript.
import { register } from "tsx/esm/api";

register();
await import("./policy-worker.ts");
