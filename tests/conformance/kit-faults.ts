import { beforeAll, describe, expect, it } from "vitest";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { type ConformanceTarget, expectProblem, protocolClient } from "./client.js";
import { INTERNAL_SECRET } from "./faulty-env.js";

/**
 * Kit-level faults, run against `faultyEnvironment` served with `maxInFlight: 2`: a hanging tool
 * times out without wedging the server, a throwing tool is a tool error, a crashing scorer is a bare
 * 500 `internal`, and load beyond the in-flight limit is 429 `rate_limited`.
 */
export function describeKitFaults(name: string, setup: () => Promise<ConformanceTarget> | ConformanceTarget) {
  describe(`edgegym/v1 kit faults: ${name}`, () => {
    let c: ReturnType<typeof protocolClient>;
    let target: ConformanceTarget;
    const start = async () => (await c.start({ split: "train", index: 0 })).session;
    const hang = { content: formatHermesCall("hang", {}) };

    beforeAll(async () => {
      target = await setup();
      c = protocolClient(target);
      return async () => {
        await target.close?.();
      };
    });

    it("a hanging tool gives 504 step_timeout and the server keeps serving", async () => {
      const session = await start();
      await expectProblem(await c.post("/v1/step", { session, action: hang }), "step_timeout");
      const { results } = await c.batch([
        { session, action: hang },
        { session, action: { content: "ok" } },
      ]);
      expect(results[0]).toMatchObject({ error: { code: "step_timeout" } });
      expect(results[1]).toMatchObject({ done: true, reward: 1 });
      expect((await c.manifest()).name).toBe("faulty");
    });

    it("a tool that throws is a tool error message, not an HTTP error", async () => {
      const r = await c.step(await start(), { content: formatHermesCall("boom", {}) });
      expect(r.done).toBe(false);
      expect(r.observation.messages[0]?.content).toContain("Error: boom failed");
    });

    it("a crash is 500 internal with no message or stack leaked", async () => {
      const res = await c.post("/v1/step", { session: await start(), action: { content: "crash" } });
      const clone = res.clone();
      await expectProblem(res, "internal");
      const text = await clone.text();
      expect(text).not.toContain(INTERNAL_SECRET);
      expect(text).not.toContain("faulty-env");
    });

    it("requests beyond the in-flight limit get 429 rate_limited with Retry-After", async () => {
      const [a, b] = [await start(), await start()];
      const slow = [a, b].map((session) => c.post("/v1/step", { session, action: hang }));
      await new Promise((r) => setTimeout(r, 50));
      const res = await c.get("/v1/manifest");
      expect(res.headers.get("retry-after")).toBe("1");
      await expectProblem(res, "rate_limited");
      for (const r of await Promise.all(slow)) await expectProblem(r, "step_timeout");
      expect((await c.manifest()).name).toBe("faulty");
    });
  });
}
