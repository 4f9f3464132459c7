import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "../environments/builtin.js";
import { formatHermesCall } from "../shared/tool-calls.js";
import { anyName, PROTOTYPE_NAMES } from "./conformance/hostile-suite.js";

/** The worker entry inside workerd (its D1 empty): user-given names never reach a 5xx. */
describe("any string as a tool, split or env name, inside workerd on every built-in env", () => {
  const post = (path: string, body: unknown) =>
    SELF.fetch(`http://edgegym.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const sessions = new Map<string, string>();

  beforeAll(async () => {
    for (const env of builtinEnvironments) {
      const res = await post(`/envs/${env.name}/v1/sessions`, { split: "train", index: 0 });
      if (res.status === 201) sessions.set(env.name, ((await res.json()) as { session: string }).session);
      else await res.body?.cancel();
    }
    expect(sessions.size).toBeGreaterThanOrEqual(5);
  });

  it("every Object.prototype name is an unknown tool in every env, in Hermes and OpenAI form", async () => {
    for (const [env, session] of sessions) {
      for (const name of PROTOTYPE_NAMES) {
        for (const action of [
          { content: formatHermesCall(name, {}) },
          { content: null, tool_calls: [{ function: { name, arguments: "{}" } }] },
        ]) {
          const res = await post(`/envs/${env}/v1/step`, { session, action });
          const text = await res.text();
          expect(res.status, `${env} ${name}: ${text}`).toBe(200);
          expect(text, `${env} ${name}`).toContain(`unknown tool \\"${name}\\"`);
        }
      }
    }
  });

  it("property: any tool name in any env, and any split, is answered below 500", async () => {
    const envs = [...sessions.keys()];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...envs), anyName(), fc.boolean(), async (env, name, hermes) => {
        const action = hermes
          ? { content: formatHermesCall(name, {}) }
          : { content: null, tool_calls: [{ function: { name, arguments: {} } }] };
        const step = await post(`/envs/${env}/v1/step`, { session: sessions.get(env), action });
        expect(step.status, `${env} ${JSON.stringify(name)}: ${await step.text()}`).toBeLessThan(500);
        const start = await post(`/envs/${env}/v1/sessions`, { split: name });
        expect(start.status, `${env} ${JSON.stringify(name)}: ${await start.text()}`).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});
