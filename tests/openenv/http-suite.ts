import { expect, it } from "vitest";
import { Problem } from "../../shared/errors.js";
import { OpenEnvResult, OpenEnvState } from "../../shared/openenv.js";
import { expertAction, type OpenEnvTarget } from "./target.js";

/** OpenEnv's HTTP routes: `/health`, `/metadata`, `/schema`, `/state`, the stateless `/reset` and `/step`, tasks. */
export function httpTests(suite: { target: OpenEnvTarget }): void {
  const send = (path: string, init?: RequestInit) =>
    (suite.target.fetch ?? fetch)(`${suite.target.baseUrl}${path}`, init);
  const post = (path: string, body: unknown) =>
    send(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const json = async (res: Response, status: number) => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const problem = async (res: Response, status: number) => {
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    return Problem.parse(await json(res, status));
  };

  it("answers /health, /metadata (OpenEnv's EnvironmentMetadata fields) and /schema", async () => {
    expect(await json(await send("/health"), 200)).toEqual({ status: "healthy" });
    const meta = await json(await send("/metadata"), 200);
    expect(Object.keys(meta).sort()).toEqual(
      ["author", "description", "documentation_url", "name", "readme_content", "version"].sort(),
    );
    expect(typeof meta.name).toBe("string");
    const schema = await json(await send("/schema"), 200);
    expect(Object.keys(schema).sort()).toEqual(["action", "observation", "state"]);
    // verifiers' OpenEnvEnv puts the model's raw reply into the one required string field.
    const action = schema.action as { required: string[]; properties: Record<string, { type?: unknown }> };
    expect(action.required).toEqual(["content"]);
    expect(action.properties.content?.type).toBe("string");
    expect(JSON.stringify(action)).not.toMatch(/list_tools|call_tool/);
  });

  it("lists its task counts at /num_tasks and refuses an unknown split", async () => {
    const counts = await json(await send("/num_tasks"), 200);
    expect(counts.split).toBe("train");
    expect(counts.num_tasks).toBe((counts.splits as Record<string, number>).train);
    expect((await problem(await send("/num_tasks?split=nope"), 404)).code).toBe("unknown_split");
  });

  it("lists its tasks as OpenReward's servers do: list_environments, splits, num_tasks, task, task_range, tools", async () => {
    const names = (await json(await send("/list_environments"), 200)) as unknown as string[];
    expect(names).toHaveLength(1);
    const name = names[0] ?? "";
    const { splits } = await json(await send("/num_tasks"), 200);
    const counts = splits as Record<string, number>;
    const listed = (await json(await send(`/${name}/splits`), 200)) as unknown as {
      name: string;
      type: string;
    }[];
    expect(listed.map((s) => s.name)).toEqual(Object.keys(counts));
    expect(listed.find((s) => s.name === "train")?.type).toBe("train");
    expect(await json(await post(`/${name}/num_tasks`, { split: "train" }), 200)).toEqual({
      num_tasks: counts.train,
    });
    expect(await json(await post(`/${name}/task`, { split: "train", index: 2 }), 200)).toEqual({
      task: { split: "train", index: 2 },
      env_name: name,
    });
    const range = await json(await post(`/${name}/task_range`, { split: "train", start: 1, stop: 3 }), 200);
    expect(range.tasks).toEqual([
      { split: "train", index: 1 },
      { split: "train", index: 2 },
    ]);
    const { tools } = await json(await send(`/${name}/tools`), 200);
    expect((tools as { name: string }[]).length).toBeGreaterThan(0);
    // Refusals: a split, index or env this server doesn't have, and a range past the bound.
    expect((await problem(await post(`/${name}/num_tasks`, { split: "nope" }), 404)).code).toBe(
      "unknown_split",
    );
    const past = { split: "train", index: counts.train ?? 0 };
    expect((await problem(await post(`/${name}/task`, past), 404)).code).toBe("task_out_of_range");
    expect((await problem(await send("/no-such-env/splits"), 404)).code).toBe("not_found");
    if ((counts.train ?? 0) > 1_000) {
      const wide = { split: "train", start: 0, stop: 1_001 };
      expect((await problem(await post(`/${name}/task_range`, wide), 422)).code).toBe("invalid_request");
    }
  });

  it("plays statelessly: POST /reset hands out the token, POST /step carries it (top level or in the action's metadata)", async () => {
    const reset = OpenEnvResult.parse(await json(await post("/reset", ""), 200));
    expect(reset).toMatchObject({ reward: null, done: false });
    let token = reset.observation.metadata.session as string;
    expect(typeof token).toBe("string");
    const chosen = OpenEnvResult.parse(
      await json(await post("/reset", { split: "train", index: 0, seed: 5 }), 200),
    );
    expect(chosen.observation.metadata.task).toEqual({ split: "train", index: 0 });
    token = chosen.observation.metadata.session as string;
    let done = false;
    let steps = 0;
    while (!done) {
      const action = await expertAction(suite.target, token);
      const body =
        steps % 2 === 0
          ? { action, session: token }
          : { action: { ...action, metadata: { session: token } } };
      const r = OpenEnvResult.parse(await json(await post("/step", body), 200));
      steps++;
      done = r.done;
      if (done) expect(typeof r.observation.metadata.receipt).toBe("string");
      token = r.observation.metadata.session as string;
      expect(steps).toBeLessThanOrEqual(64);
    }
    const state = OpenEnvState.parse(
      await json(await send("/state", { headers: { "edgegym-session": token } }), 200),
    );
    expect(state).toMatchObject({ step_count: steps, done: true });
    expect((await problem(await post("/step", { action: { content: "1" }, session: token }), 409)).code).toBe(
      "episode_done",
    );
  });

  it("refuses bad stateless requests with problem+json", async () => {
    const reset = OpenEnvResult.parse(await json(await post("/reset", {}), 200));
    const token = reset.observation.metadata.session as string;
    expect((await problem(await post("/step", { action: { content: "1" } }), 422)).code).toBe(
      "invalid_request",
    );
    expect((await problem(await post("/step", { action: { text: 1 }, session: token }), 422)).code).toBe(
      "invalid_request",
    );
    expect(
      (await problem(await post("/step", { action: { content: "1" }, session: "forged" }), 401)).code,
    ).toBe("invalid_session");
    expect((await problem(await post("/reset", "{nope"), 400)).code).toBe("invalid_json");
    expect((await problem(await post("/reset", { split: "nope" }), 404)).code).toBe("unknown_split");
    expect((await problem(await send("/ws"), 400)).code).toBe("bad_request");
    // No token: OpenEnv's blank state.
    expect(OpenEnvState.parse(await json(await send("/state"), 200))).toMatchObject({
      episode_id: null,
      step_count: 0,
    });
  });

  it("speaks OpenEnv's production-mode MCP dialect at /openenv/mcp, leaving /mcp standard", async () => {
    let id = 0;
    const rpc = async (method: string, params: Record<string, unknown> = {}, path = "/openenv/mcp") =>
      json(await post(path, { jsonrpc: "2.0", id: ++id, method, params }), 200);
    const created = await rpc("openenv/session/create", { split: "train", index: 0 });
    const sessionId = (created.result as { session_id: string }).session_id;
    expect(typeof sessionId).toBe("string");
    const listed = await rpc("tools/list", { session_id: sessionId });
    expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const final = await rpc("tools/call", {
      session_id: sessionId,
      name: "submit_answer",
      arguments: { answer: "1" },
    });
    expect(final.result).toMatchObject({ done: true, isError: false });
    expect(typeof (final.result as { data: unknown }).data).toBe("string");
    const after = await rpc("tools/call", {
      session_id: sessionId,
      name: "submit_answer",
      arguments: { answer: "1" },
    });
    expect((after.error as { code: number }).code).toBe(-32600);
    expect((await rpc("tools/call", { name: "submit_answer", arguments: {} })).error).toMatchObject({
      code: -32602,
    });
    expect(await rpc("openenv/session/close", { session_id: sessionId })).toMatchObject({
      result: { session_id: sessionId, closed: true },
    });
    expect((await rpc("openenv/session/close", { session_id: sessionId })).error).toMatchObject({
      code: -32602,
    });
    expect((await json(await post("/openenv/mcp", "{nope"), 200)).error).toMatchObject({ code: -32700 });
    // The standard endpoint does not take the dialect: no OpenEnv session comes back from it.
    const standard = await post("/mcp", {
      jsonrpc: "2.0",
      id: 99,
      method: "openenv/session/create",
      params: {},
    });
    const text = await standard.text();
    expect(text).not.toContain("session_id");
  });
}
