import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { calculator } from "../../environments/calculator/index.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { StepResult } from "../../shared/protocol.js";

/** Random actions through the whole env (in-process `app.fetch`): every one is a step result, never a crash. */
describe("random actions never throw out of the calculator env", () => {
  const app = createEnvironmentsHost([calculator]);
  let secrets: Record<string, string>;
  let session: string;
  const post = (path: string, body: unknown) =>
    app.fetch(
      new Request(`http://local/envs/calculator${path}`, { method: "POST", body: JSON.stringify(body) }),
      secrets,
    );
  beforeAll(async () => {
    secrets = await generateSecrets();
    session = ((await (await post("/v1/sessions", { index: 0 })).json()) as { session: string }).session;
  });

  const expression = fc.string({ unit: fc.constantFrom(..."0123456789+-*/^()%. ×÷"), maxLength: 80 });
  const content = fc.oneof(
    fc.string({ maxLength: 300 }),
    expression.map(
      (e) => `<tool_call>{"name":"calculator","arguments":{"expression":${JSON.stringify(e)}}}</tool_call>`,
    ),
    fc.jsonValue().map((v) => `<tool_call>${JSON.stringify(v)}</tool_call>`),
    fc.string({ maxLength: 50 }).map((s) => `reasoning #### ${s}`),
  );
  const toolCalls = fc.array(
    fc.record({
      id: fc.string({ maxLength: 8 }),
      function: fc.record({
        name: fc.constantFrom("calculator", "nope", ""),
        arguments: fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        ),
      }),
    }),
    { minLength: 1, maxLength: 3 },
  );

  it("text and tool_calls actions get a 200 step result", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Within the env's 2,048-character action limit (a longer action is a 413 problem, tested elsewhere).
        fc
          .oneof(
            content.map((c) => ({ content: c })),
            toolCalls.map((t) => ({ tool_calls: t })),
          )
          .filter((a) => JSON.stringify(a).length <= 1500),
        async (action) => {
          const res = await post("/v1/step", { session, action });
          const body = await res.text();
          expect(res.status, body).toBe(200);
          const r = StepResult.parse(JSON.parse(body));
          expect(Number.isFinite(r.reward)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
