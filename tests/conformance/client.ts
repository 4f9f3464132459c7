import { expect } from "vitest";
import { type ErrorCode, errorStatus, PROBLEM_CONTENT_TYPE, Problem } from "../../shared/errors.js";
import {
  type Action,
  type BatchResponse,
  ExpertResponse,
  Manifest,
  SessionResponse,
  StepResult,
  type TaskRef,
} from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** What a conformance run needs to reach one environment. */
export type ConformanceTarget = {
  /** The environment's base URL B, e.g. `http://127.0.0.1:40123/envs/calculator`. */
  baseUrl: string;
  /** How to send requests; default the global `fetch` (real HTTP). Inside workerd: `SELF.fetch`. */
  fetch?: FetchLike;
  /** The deployment's secrets (`EDGEGYM_SESSION_KEY`, ...): the suite forges expired and foreign tokens. */
  secrets: Readonly<Record<string, string>>;
  /** A train task the expert solves; default `train` index 0. */
  solvable?: TaskRef;
  /** A valid tool call for style tests; default the first call of the expert's first action. */
  toolCall?: { name: string; arguments: unknown };
  /** Stops whatever setup started. */
  close?: () => Promise<void> | void;
};

/** A thin edgegym/v1 client over one target, asserting the success shapes as it goes. */
export function protocolClient(target: ConformanceTarget) {
  const send = target.fetch ?? ((input, init) => fetch(input, init));
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    send(`${target.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const ok = async <T>(res: Response, status: number, parse: (v: unknown) => T): Promise<T> => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return parse(JSON.parse(text));
  };
  return {
    send,
    get: (path: string) => send(`${target.baseUrl}${path}`),
    post,
    manifest: async () => ok(await send(`${target.baseUrl}/v1/manifest`), 200, (v) => Manifest.parse(v)),
    start: async (body: { split?: string; index?: number; seed?: number }) =>
      ok(await post("/v1/sessions", body), 201, (v) => SessionResponse.parse(v)),
    step: async (session: string, action: Action) =>
      ok(await post("/v1/step", { session, action }), 200, (v) => StepResult.parse(v)),
    expert: async (session: string) =>
      ok(await post("/v1/expert", { session }), 200, (v) => ExpertResponse.parse(v).action),
    batch: async (steps: unknown[]) =>
      ok(await post("/v1/step:batch", { steps }), 200, (v) => v as BatchResponse),
  };
}

export type ProtocolClient = ReturnType<typeof protocolClient>;

/**
 * Shared state of one conformance run: the target, a client, and the manifest fetched once. Here
 * rather than in conformance.ts, which imports every suite, so the suites needn't import it back.
 */
export type Suite = {
  target: ConformanceTarget;
  client: ProtocolClient;
  manifest: Awaited<ReturnType<ProtocolClient["manifest"]>>;
};

/** Asserts an RFC 9457 problem with `code` and its status, and that nothing of a stack trace leaks. */
export async function expectProblem(res: Response, code: ErrorCode): Promise<Problem> {
  const text = await res.text();
  expect(res.status, text).toBe(errorStatus[code]);
  expect(res.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
  const body = Problem.parse(JSON.parse(text));
  expect(body.code, text).toBe(code);
  expect(body.status).toBe(res.status);
  expect(text).not.toMatch(/\bat .*:\d+:\d+/);
  return body;
}

/** Plays the expert from a fresh session to the end of the episode: its actions and their results. */
export async function playExpert(c: ProtocolClient, task: TaskRef, maxSteps: number) {
  const started = await c.start(task);
  let session = started.session;
  const actions: Action[] = [];
  const results: StepResult[] = [];
  for (let i = 0; i < maxSteps; i++) {
    const action = await c.expert(session);
    actions.push(action);
    const result = await c.step(session, action);
    results.push(result);
    if (result.done) break;
    session = result.session;
  }
  const last = results.at(-1);
  if (!last?.done) throw new Error(`the expert did not finish ${task.split}/${task.index}`);
  return { started, actions, results, last };
}

/** The first tool call of an action, in either style. */
export function firstCall(action: Action): { name: string; arguments: unknown } | undefined {
  const openai = action.tool_calls?.[0];
  if (openai) {
    const args = openai.function.arguments;
    return { name: openai.function.name, arguments: typeof args === "string" ? JSON.parse(args) : args };
  }
  const hermes = parseHermesCalls(action.content ?? "")[0];
  return hermes?.ok ? { name: hermes.name, arguments: hermes.arguments } : undefined;
}
