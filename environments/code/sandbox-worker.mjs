// A Node sandbox thread for thread-pool.ts: runs one program at a time. Plain JavaScript that imports
// the TypeScript sources by their real names, so it starts under tsx and under Node's type stripping.
import { parentPort } from "node:worker_threads";
import { discardQuickJS, quickjs } from "./quickjs.ts";
import { runProgram } from "./sandbox.ts";

parentPort?.on("message", async ({ id, code, limits }) => {
  const qjs = await quickjs(limits.memoryBytes);
  const run = runProgram(qjs, code, limits);
  if (run.poisoned) discardQuickJS(limits.memoryBytes);
  parentPort?.postMessage({ id, run });
});
parentPort?.postMessage("ready");
