import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { describeConformance, protocolClient } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { calculator } from "../calculator/index.js";
import { code, createCodeEnvironment, DEFAULT_CODE_CONFIG } from "./index.js";

describeConformance("code on Node", () => serveOnNode([code]));

// Hostile programs get a short deadline so that 50 of them fit the test budget; the limits under test
// are the same code paths as the 1 s default.
const hostileConfig = {
  ...DEFAULT_CODE_CONFIG,
  sandbox: { ...DEFAULT_CODE_CONFIG.sandbox, timeoutMs: 250 },
  maxQueueWaitMs: 1500,
};

describe("code over real HTTP on Node", () => {
  let server: Awaited<ReturnType<typeof serveOnNode>>;
  let defaults: Awaited<ReturnType<typeof serveOnNode>>;
  let c: ReturnType<typeof protocolClient>;
  let d: ReturnType<typeof protocolClient>;
  beforeAll(async () => {
    server = await serveOnNode([createCodeEnvironment(hostileConfig), calculator]);
    defaults = await serveOnNode([code]);
    c = protocolClient(server);
    d = protocolClient(defaults);
  });
  afterAll(async () => {
    await server.close?.();
    await defaults.close?.();
  });

  const runTool = async (program: string, name = "run_javascript", client = c) => {
    const { session } = await client.start({ split: "train", index: 0 });
    const r = await client.step(session, { content: formatHermesCall(name, { code: program }) });
    expect(r.done).toBe(false);
    const text = r.observation.messages.map((m) => m.content).join("");
    return text;
  };

  it("runs code under run_javascript and its alias code_interpreter", async () => {
    expect(await runTool("console.log(2 ** 10); 'ok'")).toContain('stdout:\n1024\nresult: "ok"');
    expect(await runTool("[1, 2, 3].reduce((a, b) => a + b)", "code_interpreter")).toContain("result: 6");
  });

  it("gives a clear tool error for each hostile program under the default limits and stays healthy", async () => {
    const cases: [string, RegExp][] = [
      ["while (true) {}", /Error: time limit exceeded/],
      ["const a = []; for (;;) a.push(new Uint8Array(4 << 20))", /Error: memory limit exceeded/],
      ["let s = 'ab'; for (;;) s += s", /Error: memory limit exceeded/],
      ["function f() { return f() + 1 } f()", /Error: stack overflow/],
      ["fetch('http://127.0.0.1/')", /Error: ReferenceError: 'fetch' is not defined/],
      ["require('fs')", /Error: ReferenceError: 'require' is not defined/],
      ["process.exit(1)", /Error: ReferenceError: 'process' is not defined/],
      [
        "globalThis.constructor.constructor('return process')().exit(1)",
        /Error: ReferenceError: 'process' is not defined/,
      ],
    ];
    for (const [program, expected] of cases)
      expect(await runTool(program, "run_javascript", d)).toMatch(expected);
    const huge = await runTool("for (let i = 0; i < 5000; i++) console.log('z'.repeat(80))");
    expect(huge).toContain("[output truncated at 4096 characters]");
    expect(huge.length).toBeLessThan(4400);
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
    // Every hostile call has ended, so the next one is not refused as busy: it runs. (No wall-time
    // bound: on a loaded machine that would measure the machine, not the server.)
    expect(await runTool("6 * 7")).toContain("result: 42");
    const manifest = await c.get("/v1/manifest");
    expect(manifest.status).toBe(200);
    const other = await fetch(`http://127.0.0.1:${server.port}/envs/calculator/v1/manifest`);
    expect(other.status).toBe(200);
  });

  it("scores \\boxed{n} in <answer> and #### n; a wrong number scores 0", async () => {
    const { session } = await c.start({ split: "train", index: 3 });
    const action = await c.expert(session);
    const ran = await c.step(session, action);
    const good = await c.step(ran.session, await c.expert(ran.session));
    expect(good).toMatchObject({ done: true, reward: 1, info: { reward_components: { outcome: 1 } } });
    const expected = Number(good.info.expected);
    expect((await c.step(ran.session, { content: `#### ${expected}` })).reward).toBe(1);
    expect((await c.step(ran.session, { content: `<answer>\\boxed{${expected + 1}}</answer>` })).reward).toBe(
      0,
    );
  });
});
