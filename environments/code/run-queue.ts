import { onNode, onWorkerd } from "../../shared/runtime.js";
import { discardQuickJS, quickjs } from "./quickjs.js";
import { type QueueOptions, runProgram, type SandboxLimits, type SandboxRun } from "./sandbox.js";
import type { ThreadPool } from "./thread-pool.js";

const busy = (waited: number): SandboxRun => ({
  ok: false,
  error: {
    kind: "busy",
    message: `the sandbox is busy (waited ${waited} ms for a turn); run the code again`,
    stdout: "",
  },
  poisoned: false,
});

// setImmediate (Node) runs right after pending I/O; setTimeout(0) would idle at least 1 ms per run.
const yieldToEventLoop = () =>
  new Promise<void>((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/** workerd cannot compile wasm from bytes, so there the binary comes in as a module (CompiledWasm rule). */
const wasmModule = onWorkerd ? async () => (await import("./quickjs-wasm.js")).default : undefined;

/**
 * Runs one program in a fresh sandbox on the calling thread (workerd, which has no threads). A run
 * holds the thread until it ends, so runs never overlap; each call first yields to the event loop, so
 * other requests' I/O gets a turn between runs, and a call that then finds it has waited longer than
 * `maxWaitMs` behind other runs is refused as busy: a burst of hostile programs costs about `maxWaitMs`
 * plus one deadline, not one deadline each. There is deliberately no promise chain shared between
 * calls: workerd cancels a finished request's timers, which would strand the calls queued behind it.
 */
export async function runInline(
  code: string,
  limits: SandboxLimits,
  options: QueueOptions,
): Promise<SandboxRun> {
  const now = options.now ?? Date.now;
  const enqueued = now();
  await yieldToEventLoop();
  const waited = now() - enqueued;
  if (options.signal?.aborted || waited > options.maxWaitMs) return busy(waited);
  let qjs: Awaited<ReturnType<typeof quickjs>>;
  try {
    qjs = await quickjs(limits.memoryBytes, wasmModule);
  } catch {
    return {
      ok: false,
      error: { kind: "crash", message: "the sandbox could not start; run the code again", stdout: "" },
      poisoned: true,
    };
  }
  const run = runProgram(qjs, code, limits);
  if (run.poisoned) discardQuickJS(limits.memoryBytes);
  return run;
}

let pool: Promise<ThreadPool | undefined> | undefined;

/** Node's sandbox threads, one per core up to 4; undefined where threads can't start (then inline). */
function threads(): Promise<ThreadPool | undefined> {
  if (!pool) {
    pool = onNode
      ? import("./thread-pool.js")
          .then(async ({ startThreadPool }) => {
            const { availableParallelism } = await import("node:os");
            return startThreadPool(Math.min(4, Math.max(1, availableParallelism())));
          })
          .catch(() => undefined)
      : Promise.resolve(undefined);
  }
  return pool;
}

/**
 * Runs `code` in a fresh QuickJS sandbox: on Node in a worker thread with a watchdog that kills a
 * run past its deadline, on workerd (no threads) inline. The result is the same either way.
 */
export async function runJavaScript(
  code: string,
  limits: SandboxLimits,
  options: QueueOptions,
): Promise<SandboxRun> {
  const p = await threads();
  return p ? p.run(code, limits, options) : runInline(code, limits, options);
}
