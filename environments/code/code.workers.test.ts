import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { describeConformance, protocolClient } from "../../tests/conformance/index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};
const target = {
  baseUrl: "http://edgegym.test/envs/code",
  fetch: (input: string, init?: RequestInit) => SELF.fetch(input, init),
  secrets,
};

describeConformance("code inside workerd (the worker entry, through SELF.fetch)", () => target);

describe("code sandbox inside workerd", () => {
  const c = protocolClient(target);
  const runTool = async (program: string) => {
    const { session } = await c.start({ split: "train", index: 0 });
    const r = await c.step(session, { content: formatHermesCall("run_javascript", { code: program }) });
    return r.observation.messages.map((m) => m.content).join("");
  };

  it("runs QuickJS from the imported wasm module: 2**10 = 1024", async () => {
    expect(await runTool("console.log(2 ** 10); 'ok'")).toContain('stdout:\n1024\nresult: "ok"');
  });

  it("gives a clear tool error for each hostile program and keeps serving", async () => {
    const cases: [string, RegExp][] = [
      ["while (true) {}", /Error: time limit exceeded/],
      ["const a = []; for (;;) a.push(new Uint8Array(4 << 20))", /Error: memory limit exceeded/],
      ["function f() { return f() + 1 } f()", /Error: stack overflow/],
      ["fetch('http://example.com/')", /Error: ReferenceError: 'fetch' is not defined/],
      ["require('fs')", /Error: ReferenceError: 'require' is not defined/],
      ["process.exit(1)", /Error: ReferenceError: 'process' is not defined/],
    ];
    for (const [program, expected] of cases) expect(await runTool(program)).toMatch(expected);
    const huge = await runTool("for (let i = 0; i < 5000; i++) console.log('z'.repeat(80))");
    expect(huge).toContain("[output truncated at 4096 characters]");
  });

  it("survives 50 hostile calls at once and then serves a normal request", async () => {
    const programs = ["while (true) {}", "let s = 'ab'; for (;;) s += s", "function f() { f() } f()"];
    const texts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => runTool(programs[i % programs.length] as string)),
    );
    for (const t of texts)
      expect(t).toMatch(
        /Error: (time limit exceeded|memory limit exceeded|stack overflow|the sandbox is busy)/,
      );
    // Every hostile call has ended, so the next one runs instead of being refused as busy. (No
    // wall-time bound: on a loaded machine that would measure the machine, not the worker.)
    expect(await runTool("6 * 7")).toContain("result: 42");
  });
});
