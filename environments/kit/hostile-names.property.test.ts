import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { anyName, PROTOTYPE_NAMES } from "../../tests/conformance/hostile-suite.js";
import { builtinEnvironments } from "../builtin.js";
import { openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "./index.js";

/**
 * The whole host in-process (`app.request`, no socket), every built-in environment, with an empty
 * local database: user-given names (tools, splits, env names in the path) never reach a 5xx.
 */
describe("any string as a tool, split or env name, in-process on every built-in env", () => {
  const host = createEnvironmentsHost(builtinEnvironments);
  let bindings: Record<string, unknown>;
  let db: { close(): void };
  /** A train session for each env that has tasks without imported data. */
  const sessions = new Map<string, string>();
  const post = (path: string, body: unknown) =>
    host.request(path, { method: "POST", body: JSON.stringify(body) }, bindings);

  beforeAll(async () => {
    const local = await openLocalDb(":memory:");
    db = local;
    bindings = { ...(await generateSecrets()), EDGEGYM_DB: local };
    for (const env of builtinEnvironments) {
      const res = await post(`/envs/${env.name}/v1/sessions`, { split: "train", index: 0 });
      if (res.status === 201) sessions.set(env.name, ((await res.json()) as { session: string }).session);
    }
    // Procedural calculator, code, search, webshop and lookup need no data.
    expect(sessions.size).toBeGreaterThanOrEqual(5);
  });
  afterAll(() => db.close());

  it("tool names: every Object.prototype name is an unknown tool in every env", async () => {
    for (const [env, session] of sessions) {
      for (const name of PROTOTYPE_NAMES) {
        const res = await post(`/envs/${env}/v1/step`, {
          session,
          action: { content: formatHermesCall(name, {}) },
        });
        const text = await res.text();
        expect(res.status, `${env} ${name}: ${text}`).toBe(200);
        expect(text, `${env} ${name}`).toContain(`unknown tool \\"${name}\\"`);
      }
    }
  });

  it("property: any tool name, in either form, in any env, is answered below 500", async () => {
    const envs = [...sessions.keys()];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...envs), anyName(), fc.boolean(), async (env, name, hermes) => {
        const action = hermes
          ? { content: formatHermesCall(name, {}) }
          : { content: null, tool_calls: [{ function: { name, arguments: {} } }] };
        const res = await post(`/envs/${env}/v1/step`, { session: sessions.get(env), action });
        expect(res.status, `${env} ${JSON.stringify(name)}: ${await res.text()}`).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it("property: any split in any env, and any env name in the path, is answered below 500", async () => {
    const envs = builtinEnvironments.map((e) => e.name);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...envs), anyName(), async (env, name) => {
        const start = await post(`/envs/${env}/v1/sessions`, { split: name });
        expect(start.status, `${env} ${JSON.stringify(name)}: ${await start.text()}`).toBeLessThan(500);
        const path = `/envs/${encodeURIComponent(name)}/v1/manifest`;
        const manifest = await host.request(path, {}, bindings);
        expect(manifest.status, `${path}: ${await manifest.text()}`).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });
});
