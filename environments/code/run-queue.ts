import { discardQuickJS, quickjs } from "./quickjs.js";
import { runProgram, type SandboxLimits, type SandboxRun } from "./sandbox.js";

export type QueueOptions = {
  /** A call that has waited this long for its turn is refused as busy instead of run. */
  maxWaitMs: number;
  /** Aborted when the step's deadline passes: a call still waiting is dropped. */
  signal?: AbortSignal;
};

let tail: Promise<unknown> = Promise.resolve();

// setImmediate (Node) runs right after pending I/O; setTimeout(0) would idle at least 1 ms per run.
const yieldToEventLoop = () =>
  new Promise<void>((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/**
 * Runs one program in a fresh sandbox, one at a time per isolate. A QuickJS run holds the thread for
 * up to its deadline, so runs are queued instead of interleaved, the event loop gets a turn between
 * them (other requests keep being served), and a call that waited longer than `maxWaitMs` is refused
 * as busy: a burst of hostile programs costs at most `maxWaitMs` plus one deadline, not one deadline each.
 */
export function runJavaScript(
  code: string,
  limits: SandboxLimits,
  options: QueueOptions,
): Promise<SandboxRun> {
  const enqueued = Date.now();
  const job = tail.then(async (): Promise<SandboxRun> => {
    await yieldToEventLoop();
    if (options.signal?.aborted || Date.now() - enqueued > options.maxWaitMs) {
      return {
        ok: false,
        error: {
          kind: "busy",
          message: `the sandbox is busy (waited ${Date.now() - enqueued} ms for a turn); run the code again`,
          stdout: "",
        },
        poisoned: false,
      };
    }
    let qjs: Awaited<ReturnType<typeof quickjs>>;
    try {
      qjs = await quickjs(limits.memoryBytes);
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
  });
  tail = job;
  return job;
}
