import { describe, expect, it, vi } from "vitest";
import { runInline, runJavaScript } from "./run-queue.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandbox.js";
import { startThreadPool } from "./thread-pool.js";

const run = (code: string, limits: Partial<SandboxLimits> = {}, maxWaitMs = 5000) =>
  runJavaScript(code, { ...DEFAULT_SANDBOX_LIMITS, ...limits }, { maxWaitMs });

const failure = async (code: string, limits: Partial<SandboxLimits> = {}) => {
  const r = await run(code, limits);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
};

describe("QuickJS sandbox", () => {
  it("returns printed lines and the last expression: sum 1..10 = 10*11/2 = 55", async () => {
    const r = await run('let s = 0; for (let i = 1; i <= 10; i++) s += i; console.log("sum", s); s');
    expect(r).toEqual({
      ok: true,
      value: { stdout: "sum 55\n", value: "55", truncated: false },
      poisoned: false,
    });
  });

  it("quotes a string result, prints objects as JSON and omits undefined", async () => {
    expect(await run('"ab" + "c"')).toMatchObject({ ok: true, value: { value: '"abc"' } });
    expect(await run("console.log({a: [1, 2]}, 'x')")).toMatchObject({
      ok: true,
      value: { stdout: '{"a":[1,2]} x\n' },
    });
    const r = await run("let x = 1");
    expect(r.ok && r.value.value).toBeUndefined();
  });

  it("settles a promise result and runs microtasks: 6*7 = 42", async () => {
    expect(await run("(async () => 6 * 7)()")).toMatchObject({ ok: true, value: { value: "42" } });
    const e = await failure("Promise.reject(new TypeError('nope'))");
    expect(e).toMatchObject({ kind: "exception", message: "TypeError: nope\n    at <eval> (main.js:1:29)" });
  });

  it("reports a thrown error with its line, keeping what was printed before", async () => {
    const e = await failure('console.log("before");\nnull.x');
    expect(e.kind).toBe("exception");
    expect(e.message).toMatch(/^TypeError: cannot read property 'x' of null\n.*main\.js:2/);
    expect(e.stdout).toBe("before\n");
    expect(await failure("throw 5")).toMatchObject({ kind: "exception", message: "uncaught exception: 5" });
    expect((await failure("let = ;")).message).toMatch(/^SyntaxError/);
  });

  it("stops an infinite loop at the deadline, even one that catches the interruption", async () => {
    const e = await failure("while (true) {}", { timeoutMs: 200 });
    expect(e).toMatchObject({ kind: "timeout", message: expect.stringContaining("200 ms") });
    // Inline there is no watchdog thread: QuickJS's own interrupt is what ends the loop.
    const inline = await runInline(
      "while (true) {}",
      { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 200 },
      { maxWaitMs: 5000 },
    );
    expect(inline).toMatchObject({ ok: false, error: { kind: "timeout" } });
    const caught = await failure("for (;;) { try { while (true) {} } catch (e) {} }", { timeoutMs: 200 });
    expect(caught.kind).toBe("timeout");
    const async = await failure("(async () => { for (;;) await null; })()", { timeoutMs: 200 });
    expect(async.kind).toBe("timeout");
  });

  it("stops memory bombs at the heap limit", async () => {
    expect(await failure("'x'.repeat(1e8)")).toMatchObject({
      kind: "memory",
      message: expect.stringContaining("32 MiB"),
    });
    // A generous deadline, so that the heap limit is what stops them even on a loaded machine.
    const slow = { timeoutMs: 20_000 };
    expect((await failure("new ArrayBuffer(1e8)")).kind).toBe("memory");
    // Many allocations each under the limit: it bounds their sum, not just the largest one.
    expect((await failure("const a = []; for (;;) a.push(new Uint8Array(1 << 20))", slow)).kind).toBe(
      "memory",
    );
    expect((await failure("const a = []; for (;;) a.push({ s: 'x' + a.length })", slow)).kind).toBe("memory");
    expect((await failure("const a = []; for (;;) a.push(new Array(1000).fill(a.length))", slow)).kind).toBe(
      "memory",
    );
    // 20 buffers of 1 MiB = 20 MiB fit under 32 MiB.
    const fits = await run(
      "const a = []; for (let i = 0; i < 20; i++) a.push(new Uint8Array(1 << 20)); a.length",
    );
    expect(fits).toMatchObject({ ok: true, value: { value: "20" } });
  });

  it("stops deep recursion with a stack overflow and keeps working afterwards", async () => {
    const e = await failure("function f(n) { return f(n + 1) + 1 } f(0)");
    expect(e).toMatchObject({ kind: "stack", message: expect.stringContaining("256 KiB") });
    expect(await run("2 + 2")).toMatchObject({ ok: true, value: { value: "4" } });
  });

  it("gives the program no host access: no fetch, require, process, timers or host globals", async () => {
    const r = await run(
      "[typeof fetch, typeof require, typeof process, typeof setTimeout, typeof WebAssembly, typeof __edgegym_print].join()",
    );
    expect(r).toMatchObject({
      ok: true,
      value: { value: '"undefined,undefined,undefined,undefined,undefined,undefined"' },
    });
    const e = await failure("fetch('http://example.com')");
    expect(e.message).toMatch(/^ReferenceError: 'fetch' is not defined/);
    const g = await run(
      "Object.getOwnPropertyNames(globalThis).filter(n => /fetch|process|require|import|Deno|Bun|navigator/.test(n)).length",
    );
    expect(g).toMatchObject({ ok: true, value: { value: "0" } });
  });

  it("keeps no state between calls", async () => {
    await run("globalThis.leak = 41; Object.prototype.polluted = true");
    expect(await run("typeof leak + ',' + ({}).polluted")).toMatchObject({
      ok: true,
      value: { value: '"undefined,undefined"' },
    });
  });

  it("cuts huge output at the limit", async () => {
    const r = await run("for (let i = 0; i < 1e5; i++) console.log('x'.repeat(100)); 'done'");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.truncated).toBe(true);
    // Lines are 101 characters with the newline; collection stops at the first line past 4096: 41*101 = 4141.
    expect(r.value.stdout.length).toBe(4141);
    const one = await run("console.log('y'.repeat(1e6))");
    expect(one.ok && one.value.stdout.length).toBe(4098);
  });

  it("refuses calls that waited too long for their turn as busy, on threads and inline", async () => {
    // The wait is measured on a clock the test controls, so how long the slow run really takes (and
    // how loaded the machine is) cannot change the outcome.
    let t = 0;
    const now = () => t;
    const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 300 };
    const pool = await startThreadPool(1);
    try {
      // The one thread is taken by a loop until its deadline; the two calls behind it queue.
      const slow = pool.run("while (true) {}", limits, { maxWaitMs: 100, now });
      const impatient = pool.run("1", limits, { maxWaitMs: 100, now });
      const patient = pool.run("2", limits, { maxWaitMs: 5000, now });
      // 1,000 ms pass on the clock while they wait: over the first one's 100, under the second's 5,000.
      t = 1000;
      expect(await slow).toMatchObject({ ok: false, error: { kind: "timeout" } });
      expect(await impatient).toMatchObject({
        ok: false,
        error: { kind: "busy", message: expect.stringContaining("waited 1000 ms") },
      });
      expect(await patient).toMatchObject({ ok: true, value: { value: "2" } });
      // The same queue with the clock standing still: the call runs, however long it really waited.
      const slowAgain = pool.run("while (true) {}", limits, { maxWaitMs: 100, now });
      const queued = pool.run("3", limits, { maxWaitMs: 100, now });
      expect((await slowAgain).ok).toBe(false);
      expect(await queued).toMatchObject({ ok: true, value: { value: "3" } });
    } finally {
      await pool.close();
    }

    // Load this thread's QuickJS first, so the calls below contend only for running.
    expect(await runInline("1", limits, { maxWaitMs: 5000 })).toMatchObject({ ok: true });
    t = 0;
    const inlineSlow = runInline("while (true) {}", limits, { maxWaitMs: 5000, now });
    const inlineImpatient = runInline("1", limits, { maxWaitMs: 100, now });
    const inlinePatient = runInline("2", limits, { maxWaitMs: 5000, now });
    t = 1000;
    expect((await inlineSlow).ok).toBe(false);
    expect(await inlineImpatient).toMatchObject({ ok: false, error: { kind: "busy" } });
    expect(await inlinePatient).toMatchObject({ ok: true, value: { value: "2" } });
  });

  it("on Node, kills a thread whose run overstays: a loop around one costly built-in", async () => {
    // QuickJS checks its deadline every ~10,000 iterations; at ~3 ms per 1 MB repeat that is ~30 s.
    // The watchdog ends it at 200 ms + 500 ms grace instead.
    // The watchdog's timer runs on a fake clock that the test advances: the run can only end this
    // soon through the watchdog, whatever the machine's load (a broken watchdog hangs the test).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let settled = false;
      const pending = failure("for (;;) 'x'.repeat(1e6).length", { timeoutMs: 200 }).finally(() => {
        settled = true;
      });
      // 100 ms of fake time per real turn of the event loop, until the watchdog (at 200 + 500 ms) fires.
      while (!settled) {
        await vi.advanceTimersByTimeAsync(100);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      expect((await pending).kind).toBe("timeout");
    } finally {
      vi.useRealTimers();
    }
    expect(await run("6 * 7")).toMatchObject({ ok: true, value: { value: "42" } });
  });
});
