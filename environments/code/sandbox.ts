import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { Result } from "../../shared/result.js";

export type SandboxLimits = {
  /** Wall-clock deadline per call in ms, enforced by QuickJS's interrupt handler. */
  timeoutMs: number;
  /** QuickJS heap limit per call, in bytes. */
  memoryBytes: number;
  /** QuickJS stack limit in bytes; it must stay well under the host's own stack, or the host overflows first. */
  stackBytes: number;
  /** Most characters of tool output the model sees; longer output is cut with a note. */
  outputChars: number;
};

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 1000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  outputChars: 4096,
};

/** How a run waits for its turn on a busy sandbox (inline on workerd, or for a Node thread). */
export type QueueOptions = {
  /** A call that has waited this long for its turn is refused as busy instead of run. */
  maxWaitMs: number;
  /** Aborted when the step's deadline passes: a call still waiting is dropped. */
  signal?: AbortSignal;
  /** The clock the wait is measured on (ms); Date.now unless a test controls time. */
  now?: () => number;
};

export type SandboxFailure = "timeout" | "memory" | "stack" | "exception" | "busy" | "crash";

export type SandboxOutput = {
  /** What the program printed with `console.log` (and info/warn/error/debug), one line per call. */
  stdout: string;
  /** The last expression's value as text (strings quoted), absent when it is `undefined`. */
  value?: string;
  /** Printing stopped because the output passed `outputChars`. */
  truncated: boolean;
};

export type SandboxError = { kind: SandboxFailure; message: string; stdout: string };

export type SandboxRun = Result<SandboxOutput, SandboxError> & {
  /** The shared wasm instance aborted and must be replaced. */
  poisoned: boolean;
};

/**
 * The sandbox's console, installed before the program runs. It formats values inside the VM and hands
 * the host one already-shortened line, so a huge log line never crosses into the host whole. The host
 * print function is removed from the global object before user code can see it.
 */
const prelude = (cap: number) => `(() => {
  const print = globalThis.__edgegym_print;
  delete globalThis.__edgegym_print;
  const show = (v, quote) => {
    try {
      if (typeof v === "string") return quote ? JSON.stringify(v) : v;
      if (typeof v === "object" && v !== null) { const s = JSON.stringify(v); if (s !== undefined) return s; }
      return String(v);
    } catch { try { return String(v); } catch { return "[unprintable]"; } }
  };
  let full = false;
  const log = (...args) => {
    if (full) return;
    const line = args.map((a) => show(a, false)).join(" ");
    full = print(line.length > ${cap} ? line.slice(0, ${cap + 1}) : line) === true;
  };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  return show;
})()`;

const MiB = 1024 * 1024;
/** QuickJS calls the interrupt handler about 10 times a millisecond in a tight loop (measured on Node 22). */
const CHECKS_PER_MS = 10;

/**
 * Runs `code` as a script in a fresh QuickJS runtime and context, synchronously, then disposes both.
 * The context has only the language's built-ins: no fetch, timers, require, process or host objects.
 * Microtasks (promises) run before it returns; a last value that is a promise is reported settled.
 */
export function runProgram(qjs: QuickJSWASMModule, code: string, limits: SandboxLimits): SandboxRun {
  const deadline = Date.now() + limits.timeoutMs;
  // workerd freezes the clock while code runs (it only advances on I/O), so the deadline is also
  // kept as a budget of interrupt checks, calibrated to a tight loop; on Node the clock usually trips first.
  let checks = 0;
  const budget = limits.timeoutMs * CHECKS_PER_MS;
  const expired = () => checks > budget || Date.now() > deadline;
  const interrupt = () => ++checks > budget || Date.now() > deadline;

  let stdout = "";
  let truncated = false;
  const fail = (kind: SandboxFailure, message: string, poisoned = false): SandboxRun => ({
    ok: false,
    error: { kind, message, stdout },
    poisoned,
  });

  try {
    const runtime = qjs.newRuntime({
      interruptHandler: interrupt,
      memoryLimitBytes: limits.memoryBytes,
      maxStackSizeBytes: limits.stackBytes,
    });
    try {
      const ctx = runtime.newContext();
      try {
        const print = ctx.newFunction("print", (line: QuickJSHandle) => {
          if (!truncated) stdout += `${ctx.getString(line)}\n`;
          if (stdout.length > limits.outputChars) truncated = true;
          // Tells the sandbox's console to stop formatting lines nobody will see.
          return truncated ? ctx.true : ctx.false;
        });
        ctx.setProp(ctx.global, "__edgegym_print", print);
        print.dispose();
        const show = ctx.unwrapResult(ctx.evalCode(prelude(limits.outputChars), "prelude.js"));
        try {
          const result = ctx.evalCode(code, "main.js");
          const jobs = runtime.executePendingJobs();
          if (jobs.error) {
            result.dispose();
            return fail(...classify(ctx, jobs.error, expired(), limits));
          }
          if (result.error) return fail(...classify(ctx, result.error, expired(), limits));
          const settled = settle(ctx, result.value);
          if (settled.error) return fail(...classify(ctx, settled.error, expired(), limits));
          const value = describe(ctx, show, settled.value);
          return {
            ok: true,
            value: { stdout, truncated, ...(value === undefined ? {} : { value }) },
            poisoned: false,
          };
        } finally {
          show.dispose();
        }
      } finally {
        ctx.dispose();
      }
    } finally {
      runtime.dispose();
    }
  } catch (e) {
    // Only a broken instance gets here (a wasm abort or a host stack overflow); program errors don't.
    return fail(
      "crash",
      `the sandbox failed (${e instanceof Error ? e.name : "error"}); run the code again`,
      true,
    );
  }
}

/** A promise as the program's last value is replaced by its outcome; anything else passes through. */
function settle(
  ctx: QuickJSContext,
  value: QuickJSHandle,
): { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle } {
  const state = ctx.getPromiseState(value);
  if (state.type === "fulfilled" && !state.notAPromise) {
    value.dispose();
    return { value: state.value };
  }
  if (state.type === "rejected") {
    value.dispose();
    return { error: state.error };
  }
  return { value };
}

function describe(ctx: QuickJSContext, show: QuickJSHandle, value: QuickJSHandle): string | undefined {
  try {
    if (ctx.typeof(value) === "undefined") return undefined;
    if (ctx.getPromiseState(value).type === "pending") return "Promise { <pending> }";
    const text = ctx.callFunction(show, ctx.undefined, value, ctx.true);
    if (text.error) {
      text.error.dispose();
      return "[unprintable]";
    }
    const s = ctx.getString(text.value);
    text.value.dispose();
    return s;
  } finally {
    value.dispose();
  }
}

function classify(
  ctx: QuickJSContext,
  error: QuickJSHandle,
  timedOut: boolean,
  limits: SandboxLimits,
): [SandboxFailure, string] {
  let thrown: unknown;
  try {
    thrown = ctx.dump(error);
  } finally {
    error.dispose();
  }
  const { name, message, stack } =
    typeof thrown === "object" && thrown !== null
      ? (thrown as { name?: unknown; message?: unknown; stack?: unknown })
      : { name: undefined, message: undefined, stack: undefined };
  const mib = Math.round(limits.memoryBytes / MiB);
  if (message === "out of memory" || thrown === null)
    return ["memory", `memory limit exceeded: the program used more than ${mib} MiB and was stopped`];
  if (message === "string too long")
    return ["memory", "memory limit exceeded: the program built a string longer than the sandbox allows"];
  if (message === "interrupted" && timedOut)
    return [
      "timeout",
      `time limit exceeded: the program ran longer than ${limits.timeoutMs} ms and was stopped`,
    ];
  if (message === "stack overflow" || message === "Maximum call stack size exceeded")
    return [
      "stack",
      `stack overflow: recursion too deep (stack limit ${Math.round(limits.stackBytes / 1024)} KiB)`,
    ];
  if (typeof message !== "string")
    return ["exception", `uncaught exception: ${String(JSON.stringify(thrown))}`];
  const where =
    typeof stack === "string"
      ? stack
          .split("\n")
          .filter((l) => l.includes("main.js"))
          .slice(0, 3)
      : [];
  return ["exception", [`${typeof name === "string" ? name : "Error"}: ${message}`, ...where].join("\n")];
}
