import { Validator } from "@cfworker/json-schema";
import { expect, it } from "vitest";
import { type ErrorCode, Problem } from "../../shared/errors.js";
import { StepResult, type TaskRef } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { expectProblem, firstCall, playExpert, type Suite } from "./client.js";

const UNKNOWN_TOOL = formatHermesCall("__no_such_tool__", {});

/** /v1/step and /v1/step:batch: tool-call styles, forks, receipts, limits and concurrency. */
export function stepTests(s: Suite): void {
  const solvable = (): TaskRef => s.target.solvable ?? { split: "train", index: 0 };
  const sampleCall = async (session: string) => {
    const call = s.target.toolCall ?? firstCall(await s.client.expert(session));
    if (!call) throw new Error("conformance: the expert's first action has no tool call; set `toolCall`");
    return call;
  };

  it("the sample call's arguments satisfy the tool's JSON Schema in the manifest, and junk does not", async () => {
    const { session } = await s.client.start(solvable());
    const call = await sampleCall(session);
    const tool = s.manifest.tools.find((t) => t.function.name === call.name);
    if (!tool) throw new Error(`the manifest lists no tool "${call.name}"`);
    const validator = new Validator(tool.function.parameters as Record<string, unknown>, "2020-12");
    expect(validator.validate(call.arguments).errors).toEqual([]);
    expect(validator.validate(42).valid).toBe(false);
  });

  it("Hermes calls get one user message of <tool_response> blocks", async () => {
    const { session } = await s.client.start(solvable());
    const call = await sampleCall(session);
    const r = await s.client.step(session, {
      content: `thinking\n${formatHermesCall(call.name, call.arguments)}`,
    });
    expect(r.done).toBe(false);
    // Appended, the responses are the whole observation; a replaced context ends with them.
    const { mode, messages } = r.observation;
    if (mode === "append") expect(messages).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ role: "user" });
    expect(messages.at(-1)?.content).toContain("<tool_response>");
  });

  it("OpenAI tool_calls get one tool message per call; arguments may be a string or an object", async () => {
    const { session } = await s.client.start(solvable());
    const call = await sampleCall(session);
    const r = await s.client.step(session, {
      content: null,
      tool_calls: [
        {
          id: "call_a",
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        },
        { id: "call_b", function: { name: call.name, arguments: call.arguments as Record<string, unknown> } },
      ],
    });
    const { mode, messages } = r.observation;
    const responses = messages.slice(-2);
    if (mode === "append") expect(messages).toHaveLength(2);
    else {
      // A replaced context holds the calls' assistant turn before their responses, as chat APIs require.
      const turn = messages.at(-3);
      expect(turn?.role).toBe("assistant");
      if (turn?.role === "assistant") expect(turn.tool_calls?.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    }
    expect(responses.map((m) => [m.role, "tool_call_id" in m ? m.tool_call_id : ""])).toEqual([
      ["tool", "call_a"],
      ["tool", "call_b"],
    ]);
    expect(responses[0]?.content).toBe(responses[1]?.content);
  });

  it("malformed calls, unknown tools and bad arguments come back as tool errors, not HTTP errors", async () => {
    const { session } = await s.client.start(solvable());
    const call = await sampleCall(session);
    const bad = [
      { content: "<tool_call>{not json</tool_call>" },
      { content: '<tool_call>{"name": "x"' },
      { content: UNKNOWN_TOOL },
      { content: `<tool_call>${JSON.stringify({ name: call.name, arguments: 42 })}</tool_call>` },
      { tool_calls: [{ id: "c1", function: { name: call.name, arguments: "{oops" } }] },
    ];
    for (const action of bad) {
      const r = await s.client.step(session, action);
      expect(r.done, JSON.stringify(action)).toBe(false);
      expect(r.observation.messages.map((m) => m.content).join("\n")).toMatch(/error/i);
    }
  });

  it("forks: the same token and action twice give the same observation, reward and done", async () => {
    const { session } = await s.client.start(solvable());
    const action = await s.client.expert(session);
    const [a, b] = await Promise.all([s.client.step(session, action), s.client.step(session, action)]);
    const strip = (r: StepResult) => ({ ...r, session: "", receipt: undefined });
    expect(strip(b)).toEqual(strip(a));
    const end = { content: "I give up." };
    const [c, d] = await Promise.all([s.client.step(a.session, end), s.client.step(b.session, end)]);
    expect(c.done).toBe(true);
    expect(strip(d)).toEqual(strip(c));
  });

  it("receipts verify with the manifest key, carry the episode, and a tampered one fails", async () => {
    const { started, results, last } = await playExpert(s.client, solvable(), s.manifest.limits.maxSteps);
    const receipt = last.receipt ?? "";
    const verified = await verifyReceipt(receipt, s.manifest.publicKey);
    if (!verified.ok) throw new Error(verified.error);
    const ret = results.reduce((a, r) => a + r.reward, 0);
    expect(verified.value).toMatchObject({
      env: s.manifest.name,
      version: s.manifest.version,
      contentHash: s.manifest.contentHash,
      episodeId: started.episodeId,
      task: solvable(),
      steps: results.length,
      finalReward: last.reward,
    });
    expect(verified.value.return).toBeCloseTo(ret, 9);
    const [h, p, sig] = receipt.split(".") as [string, string, string];
    const forged = JSON.parse(atob(p.replaceAll("-", "+").replaceAll("_", "/")));
    const payload = btoa(JSON.stringify({ ...forged, return: 999 })).replace(/=+$/, "");
    const tampered = `${h}.${payload.replaceAll("+", "-").replaceAll("/", "_")}.${sig}`;
    expect((await verifyReceipt(tampered, s.manifest.publicKey)).ok).toBe(false);
    const other = { ...s.manifest.publicKey, x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" };
    expect((await verifyReceipt(receipt, other)).ok).toBe(false);
  });

  it("the final step reports info.success, only there, and its receipt claims the same; a cut episode failed", async () => {
    const { results, last } = await playExpert(s.client, solvable(), s.manifest.limits.maxSteps);
    for (const r of results.slice(0, -1)) expect(r.info.success).toBeUndefined();
    expect(typeof last.info.success).toBe("boolean");
    const played = await verifyReceipt(last.receipt ?? "", s.manifest.publicKey);
    expect(played.ok && played.value.success).toBe(last.info.success);

    let { session } = await s.client.start({ split: "test", index: 0 });
    for (let i = 1; i <= s.manifest.limits.maxSteps; i++) {
      const r = await s.client.step(session, { content: UNKNOWN_TOOL });
      session = r.session;
      if (!r.done) continue;
      expect([r.truncated, r.info.success]).toEqual([true, false]);
      const cut = await verifyReceipt(r.receipt ?? "", s.manifest.publicKey);
      expect(cut.ok && cut.value.success).toBe(false);
    }
  });

  it("a finished episode's token gets 409 episode_done on step and expert", async () => {
    const { session } = await s.client.start(solvable());
    const end = await s.client.step(session, { content: "I give up." });
    expect(end.done).toBe(true);
    await expectProblem(
      await s.client.post("/v1/step", { session: end.session, action: { content: "again" } }),
      "episode_done",
    );
    await expectProblem(await s.client.post("/v1/expert", { session: end.session }), "episode_done");
  });

  it("reaching maxSteps sets done and truncated, with a receipt", async () => {
    let { session } = await s.client.start({ split: "test", index: 0 });
    const max = s.manifest.limits.maxSteps;
    for (let i = 1; i <= max; i++) {
      const r = await s.client.step(session, { content: UNKNOWN_TOOL });
      expect([r.done, r.truncated]).toEqual(i === max ? [true, true] : [false, false]);
      session = r.session;
      if (i === max) {
        const v = await verifyReceipt(r.receipt ?? "", s.manifest.publicKey);
        expect(v.ok && v.value.steps).toBe(max);
      }
    }
  });

  it("POST /v1/step:batch answers each item; one bad item does not fail the others", async () => {
    const [a, b] = await Promise.all([s.client.start(solvable()), s.client.start(solvable())]);
    const action = await s.client.expert(a.session);
    const { results } = await s.client.batch([
      { session: a.session, action },
      { session: a.session },
      { session: "not-a-token", action },
      { session: b.session, action },
    ]);
    expect(results).toHaveLength(4);
    const code = (i: number): ErrorCode | undefined => {
      const r = results[i] as { error?: unknown };
      return r.error === undefined ? undefined : Problem.parse(r.error).code;
    };
    expect([code(0), code(1), code(2), code(3)]).toEqual([
      undefined,
      "invalid_request",
      "invalid_session",
      undefined,
    ]);
    expect(StepResult.parse(results[3]).observation).toEqual(StepResult.parse(results[0]).observation);
    const tooMany = Array.from({ length: 257 }, () => ({ session: a.session, action }));
    await expectProblem(await s.client.post("/v1/step:batch", { steps: tooMany }), "invalid_request");
    await expectProblem(await s.client.post("/v1/step:batch", { steps: [] }), "invalid_request");
  });

  it("serves many concurrent sessions, each to a verified end", async () => {
    const n = 48;
    const train = s.manifest.splits.train ?? 1;
    const episodes = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        playExpert(s.client, { split: "train", index: (i * 7919) % train }, s.manifest.limits.maxSteps),
      ),
    );
    expect(new Set(episodes.map((e) => e.started.episodeId)).size).toBe(n);
    for (const e of episodes) {
      const v = await verifyReceipt(e.last.receipt ?? "", s.manifest.publicKey);
      expect(v.ok && v.value.episodeId).toBe(e.started.episodeId);
    }
  });
}
