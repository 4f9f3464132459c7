import { expect, it } from "vitest";
import { PROTOCOL } from "../../shared/protocol.js";
import { expectProblem, playExpert, type Suite } from "./client.js";

/** The manifest, session creation and task selection, and the expert route. */
export function sessionTests(s: Suite): void {
  it("GET /v1/manifest describes the environment and is stable", async () => {
    const m = s.manifest;
    expect(m.protocol).toBe(PROTOCOL);
    expect(m.toolCallFormat).toBe("hermes");
    expect(m.tools.length).toBeGreaterThan(0);
    for (const tool of m.tools) expect(tool.function.parameters.type).toBe("object");
    expect(m.splits.train).toBeGreaterThan(0);
    expect(m.splits.test).toBeGreaterThan(0);
    expect(m.reward.min).toBeLessThanOrEqual(m.reward.max);
    expect(m.publicKey).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(await s.client.manifest()).toEqual(m);
  });

  it("POST /v1/sessions starts an episode: system prompt, then the user task", async () => {
    const solvable = s.target.solvable ?? { split: "train", index: 0 };
    const res = await s.client.start(solvable);
    expect(res.task).toEqual(solvable);
    expect(res.done).toBe(false);
    expect(res.episodeId.length).toBeGreaterThan(0);
    expect(res.observation.messages[0]?.role).toBe("system");
    expect(res.observation.messages.some((m) => m.role === "user")).toBe(true);
  });

  it("index picks a task deterministically; so does seed; episodes get distinct ids", async () => {
    const [a, b] = await Promise.all([s.client.start({ index: 3 }), s.client.start({ index: 3 })]);
    expect(a.task).toEqual({ split: "train", index: 3 });
    expect(b.observation).toEqual(a.observation);
    expect(b.episodeId).not.toBe(a.episodeId);
    const [c, d] = await Promise.all([
      s.client.start({ split: "train", seed: 12345 }),
      s.client.start({ split: "train", seed: 12345 }),
    ]);
    expect(d.task).toEqual(c.task);
    expect(d.observation).toEqual(c.observation);
  });

  it("without index or seed the task is random and in range", async () => {
    const starts = await Promise.all(Array.from({ length: 8 }, () => s.client.start({ split: "test" })));
    for (const st of starts) {
      expect(st.task.split).toBe("test");
      expect(st.task.index).toBeLessThan(s.manifest.splits.test ?? 0);
    }
    if ((s.manifest.splits.test ?? 0) >= 1000) {
      expect(new Set(starts.map((st) => st.task.index)).size).toBeGreaterThan(1);
    }
  });

  it("an unknown split is 404 unknown_split; an index past the end is 404 task_out_of_range", async () => {
    await expectProblem(await s.client.post("/v1/sessions", { split: "no-such-split" }), "unknown_split");
    const count = s.manifest.splits.train ?? 0;
    await expectProblem(
      await s.client.post("/v1/sessions", { split: "train", index: count }),
      "task_out_of_range",
    );
    await s.client.start({ split: "train", index: count - 1 });
  });

  it("POST /v1/expert gives an action on train and 403 expert_forbidden on test", async () => {
    const train = await s.client.start(s.target.solvable ?? { split: "train", index: 0 });
    const action = await s.client.expert(train.session);
    expect(typeof action.content === "string" || action.tool_calls !== undefined).toBe(true);
    const test = await s.client.start({ split: "test", index: 0 });
    await expectProblem(await s.client.post("/v1/expert", { session: test.session }), "expert_forbidden");
  });

  it("the expert solves its train task, and the receipt verifies", async () => {
    const solvable = s.target.solvable ?? { split: "train", index: 0 };
    const { last, results } = await playExpert(s.client, solvable, s.manifest.limits.maxSteps);
    expect(last.truncated).toBe(false);
    const ret = results.reduce((a, r) => a + r.reward, 0);
    expect(ret).toBeGreaterThan(s.manifest.reward.min);
    expect(last.receipt).toBeDefined();
  });
}
