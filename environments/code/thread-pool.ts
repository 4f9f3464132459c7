import type { Worker } from "node:worker_threads";
import type { QueueOptions, SandboxFailure, SandboxLimits, SandboxRun } from "./sandbox.js";

/** How long past its deadline a run may take before its thread is killed (QuickJS checks the
 * deadline only every ~10,000 back-edges, so a loop around one costly built-in can overrun it). */
const WATCHDOG_GRACE_MS = 500;

type Job = {
  code: string;
  limits: SandboxLimits;
  options: QueueOptions;
  enqueued: number;
  resolve: (run: SandboxRun) => void;
};
type Thread = { worker: Worker; job?: Job; timer?: ReturnType<typeof setTimeout> };

export type ThreadPool = {
  run(code: string, limits: SandboxLimits, options: QueueOptions): Promise<SandboxRun>;
  close(): Promise<void>;
};

const failure = (kind: SandboxFailure, message: string): SandboxRun => ({
  ok: false,
  error: { kind, message, stdout: "" },
  poisoned: false,
});

/**
 * Sandboxes on `size` worker threads (Node only). The event loop never runs user code, and a thread
 * whose run outlives its deadline by `WATCHDOG_GRACE_MS` is terminated and replaced, so every call
 * ends by then. Calls wait in one queue; one that waited over `maxWaitMs` is refused as busy.
 */
export async function startThreadPool(size: number): Promise<ThreadPool> {
  const { Worker } = await import("node:worker_threads");
  const url = new URL("./sandbox-worker.mjs", import.meta.url);
  const idle: Thread[] = [];
  const all = new Set<Thread>();
  const queue: Job[] = [];
  let closed = false;

  const spawnThread = () =>
    new Promise<Thread>((resolve, reject) => {
      const worker = new Worker(url);
      worker.unref();
      const thread: Thread = { worker };
      all.add(thread);
      worker.once("error", (e) => {
        all.delete(thread);
        reject(e);
      });
      worker.once("message", (m) => {
        if (m !== "ready") return reject(new Error("the sandbox thread did not start"));
        worker.removeAllListeners("error");
        const crashed = () =>
          finish(thread, failure("crash", "the sandbox failed; run the code again"), true);
        worker.on("message", (msg: { run: SandboxRun }) => finish(thread, msg.run, false));
        worker.on("error", crashed);
        worker.on("exit", crashed);
        // Idle threads must not keep a process alive (listeners ref the worker again).
        worker.unref();
        resolve(thread);
      });
    });

  const replace = () => {
    if (closed) return;
    spawnThread().then(
      (t) => {
        idle.push(t);
        dispatch();
      },
      () => setTimeout(replace, 1000),
    );
  };

  function finish(thread: Thread, run: SandboxRun, kill: boolean) {
    clearTimeout(thread.timer);
    const job = thread.job;
    thread.job = undefined;
    job?.resolve(run);
    if (kill) {
      thread.worker.removeAllListeners();
      all.delete(thread);
      void thread.worker.terminate();
      replace();
    } else {
      idle.push(thread);
      dispatch();
    }
  }

  function dispatch() {
    while (idle.length > 0 && queue.length > 0) {
      const job = queue.shift() as Job;
      const waited = (job.options.now ?? Date.now)() - job.enqueued;
      if (job.options.signal?.aborted || waited > job.options.maxWaitMs) {
        job.resolve(
          failure("busy", `the sandbox is busy (waited ${waited} ms for a turn); run the code again`),
        );
        continue;
      }
      const thread = idle.pop() as Thread;
      thread.job = job;
      thread.timer = setTimeout(
        () =>
          finish(
            thread,
            failure(
              "timeout",
              `time limit exceeded: the program ran longer than ${job.limits.timeoutMs} ms and was stopped`,
            ),
            true,
          ),
        job.limits.timeoutMs + WATCHDOG_GRACE_MS,
      );
      thread.worker.postMessage({ code: job.code, limits: job.limits });
    }
  }

  idle.push(...(await Promise.all(Array.from({ length: size }, spawnThread))));
  return {
    run: (code, limits, options) =>
      new Promise<SandboxRun>((resolve) => {
        queue.push({ code, limits, options, enqueued: (options.now ?? Date.now)(), resolve });
        dispatch();
      }),
    close: async () => {
      closed = true;
      await Promise.all([...all].map((t) => t.worker.terminate()));
    },
  };
}
