import { expect, it } from "vitest";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import {
  ask,
  errorCode,
  expertAction,
  type OpenEnvTarget,
  observation,
  playToEnd,
  socketUrl,
} from "./target.js";

/** `/ws`: one episode per socket, OpenEnv's messages and replies, errors by OpenEnv's codes. */
export function socketTests(suite: { target: OpenEnvTarget }): void {
  const open = () => suite.target.connect(socketUrl(suite.target.baseUrl));

  it("plays an episode to its reward: the receipt, truncated and info in the observation's metadata", async () => {
    const ws = await open();
    const { result, state, steps, total } = await playToEnd(suite.target, ws);
    expect(result.done).toBe(true);
    expect(typeof result.reward).toBe("number");
    const meta = result.observation.metadata;
    expect(meta.truncated).toBe(false);
    expect(meta.info?.success).toBe(true);
    expect(typeof meta.receipt).toBe("string");
    expect(meta.step).toBe(steps);
    expect(state).toMatchObject({ step_count: steps, done: true, episode_id: meta.episode_id });
    expect(state.return).toBeCloseTo(total, 9);
    ws.close();
  });

  it("refuses a step before reset and after the end with SESSION_ERROR; reset starts a fresh episode", async () => {
    const ws = await open();
    expect(errorCode(await ask(ws, { type: "step", data: { content: "1" } }))).toBe("SESSION_ERROR");
    const first = await playToEnd(suite.target, ws);
    expect(errorCode(await ask(ws, { type: "step", data: { content: "1" } }))).toBe("SESSION_ERROR");
    const again = observation(await ask(ws, { type: "reset", data: { split: "train", index: 1, seed: 7 } }));
    expect(again.observation.metadata.episode_id).not.toBe(first.result.observation.metadata.episode_id);
    expect(again.observation.metadata.task).toEqual({ split: "train", index: 1 });
    expect(again.observation.messages.length).toBeGreaterThan(0);
    ws.close();
  });

  it("answers malformed messages with INVALID_JSON, UNKNOWN_TYPE and VALIDATION_ERROR and keeps the socket", async () => {
    const ws = await open();
    ws.send("{not json");
    expect(errorCode(await ws.next())).toBe("INVALID_JSON");
    expect(errorCode(await ask(ws, { type: "teleport" }))).toBe("UNKNOWN_TYPE");
    expect(errorCode(await ask(ws, { data: {} }))).toBe("UNKNOWN_TYPE");
    expect(errorCode(await ask(ws, { type: "step" }))).toBe("VALIDATION_ERROR");
    const split = await ask(ws, { type: "reset", data: { split: "no-such-split" } });
    expect(errorCode(split)).toBe("VALIDATION_ERROR");
    expect((split.data.problem as { code: string }).code).toBe("unknown_split");
    expect(errorCode(await ask(ws, { type: "reset", data: { index: -1 } }))).toBe("VALIDATION_ERROR");
    observation(await ask(ws, { type: "reset", data: { split: "train", index: 0 } }));
    expect(errorCode(await ask(ws, { type: "step", data: { text: "hello" } }))).toBe("VALIDATION_ERROR");
    expect(errorCode(await ask(ws, { type: "step", data: {} }))).toBe("VALIDATION_ERROR");
    // Still serving the same episode after every refusal.
    expect((await ask(ws, { type: "state" })).data.step_count).toBe(0);
    ws.close();
  });

  it("closes the socket on OpenEnv's close message, with no reply", async () => {
    const ws = await open();
    observation(await ask(ws, { type: "reset", data: {} }));
    ws.send({ type: "close" });
    expect(await ws.closed).toBe(1000);
  });

  it("takes OpenEnv's list_tools and call_tool actions: a call is one step, a bad one costs none", async () => {
    const ws = await open();
    const listed = observation(await ask(ws, { type: "step", data: { type: "list_tools" } }));
    const tools = (listed.observation as unknown as { tools: { name: string; input_schema: unknown }[] })
      .tools;
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) expect(typeof t.input_schema).toBe("object");
    const start = observation(await ask(ws, { type: "reset", data: { split: "train", index: 0 } }));
    const unknown = observation(
      await ask(ws, { type: "step", data: { type: "call_tool", tool_name: "no_such_tool", arguments: {} } }),
    );
    expect((unknown.observation as { error?: { error_type: string } }).error?.error_type).toBe(
      "tool_not_found",
    );
    expect((await ask(ws, { type: "state" })).data.step_count).toBe(0);

    const action = await expertAction(suite.target, start.observation.metadata.session as string);
    const [call] = parseHermesCalls(String(action.content ?? ""));
    const name = call?.ok ? call.name : "submit_answer";
    const args = call?.ok ? call.arguments : { answer: String(action.content) };
    const called = observation(
      await ask(ws, { type: "step", data: { type: "call_tool", tool_name: name, arguments: args } }),
    );
    const obs = called.observation as { tool_name?: string; result?: { data?: unknown }; error?: unknown };
    expect(obs.tool_name).toBe(name);
    expect(obs.error).toBeNull();
    expect(typeof obs.result?.data).toBe("string");
    expect((await ask(ws, { type: "state" })).data.step_count).toBe(1);
    ws.close();
  });

  it("answers JSON-RPC tools/list and tools/call in `mcp` messages", async () => {
    const ws = await open();
    const listed = await ask(ws, {
      type: "mcp",
      data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(listed.type).toBe("mcp");
    expect(listed.data).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(((listed.data.result as { tools: unknown[] }).tools ?? []).length).toBeGreaterThan(0);
    const nope = await ask(ws, { type: "mcp", data: { jsonrpc: "2.0", id: 2, method: "prompts/zap" } });
    expect((nope.data.error as { code: number }).code).toBe(-32601);
    const early = await ask(ws, {
      type: "mcp",
      data: {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "submit_answer", arguments: { answer: "1" } },
      },
    });
    expect((early.data.error as { data: { code: string } }).data.code).toBe("SESSION_ERROR");
    observation(await ask(ws, { type: "reset", data: {} }));
    const final = await ask(ws, {
      type: "mcp",
      data: {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "submit_answer", arguments: { answer: "1" } },
      },
    });
    expect(final.data.result).toMatchObject({ done: true, isError: false });
    ws.close();
  });
}
