import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EdgegymError } from "../../shared/errors.js";
import { StepResult } from "../../shared/protocol.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { generateSecrets } from "../kit/index.js";
import { createCodeEnvironment, DEFAULT_CODE_CONFIG } from "./index.js";

// A short deadline keeps a hundred runs of generated loops inside the test budget.
const env = createCodeEnvironment({
  ...DEFAULT_CODE_CONFIG,
  sandbox: { ...DEFAULT_CODE_CONFIG.sandbox, timeoutMs: 50 },
});

const fragments = fc.constantFrom(
  "while(true){}",
  "for(;;)",
  "function f(){return f()}",
  "f()",
  "[].constructor.constructor('return this')()",
  "new Uint8Array(1<<20)",
  "'x'.repeat(1e5)",
  "console.log(",
  ")",
  "{",
  "}",
  "await null;",
  "Promise.reject(1)",
  "throw null",
  "globalThis",
  "1+1",
  ";",
);
const program = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(fragments, { maxLength: 8 }).map((p) => p.join(" ")),
);
const content = fc.oneof(
  fc.string({ maxLength: 300 }),
  program.map((code) => formatHermesCall("run_javascript", { code })),
  program.map((code) => formatHermesCall("code_interpreter", { code })),
  fc
    .jsonValue()
    .map((args) => `<tool_call>${JSON.stringify({ name: "run_javascript", arguments: args })}</tool_call>`),
  fc.string({ maxLength: 50 }).map((s) => `<answer>\\boxed{${s}}</answer>`),
);

describe("code actions under fuzzing", () => {
  it("every action gives a valid step result with reward in [0, 1], or a typed protocol error", async () => {
    const runtime = { bindings: await generateSecrets() };
    const { session } = await env.startSession({ split: "train", index: 1 }, runtime);
    await fc.assert(
      fc.asyncProperty(content, async (text) => {
        try {
          const result = StepResult.parse(await env.step({ session, action: { content: text } }, runtime));
          expect(result.reward).toBeGreaterThanOrEqual(0);
          expect(result.reward).toBeLessThanOrEqual(1);
        } catch (e) {
          expect(e).toBeInstanceOf(EdgegymError);
          expect((e as EdgegymError).code).toBe("action_too_large");
        }
      }),
      { numRuns: 150 },
    );
    // Still healthy afterwards: 6*7 = 42.
    const after = await env.step(
      { session, action: { content: formatHermesCall("run_javascript", { code: "6*7" }) } },
      runtime,
    );
    expect(after.observation.messages[0]?.content).toContain("result: 42");
  });
});
