import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Environment, EnvRuntime } from "../../environments/kit/index.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";

export type McpConnectOptions = {
  /** How the transport reaches the server (workerd's SELF.fetch, the hub app); default global fetch. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  headers?: Record<string, string>;
};

/** The official SDK client connected to `url` (an env's `/mcp`, with the task in the query). */
export async function connectMcp(
  url: string,
  options: McpConnectOptions = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
  });
  const client = new Client({ name: "edgegym-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/**
 * The official v2 client, negotiating (`server/discover` first) as clients of the 2026-07-28
 * revision do: it picks that revision when the server offers it and falls back to initialize if not.
 */
export async function connectStatelessMcp(
  url: string,
  options: McpConnectOptions = {},
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "edgegym-test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new ModernTransport(new URL(url), {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    }),
  );
  return client;
}

/** The text of a tool result's content (every text part, joined). */
export function resultText(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

export type McpEpisodeLog = {
  calls: { name: string; arguments: Record<string, unknown>; text: string; isError: boolean }[];
  final: Record<string, unknown>;
};

/**
 * Plays the env's scripted expert over MCP: the same task runs in-process beside it, the expert's
 * action there is turned into tools/call (its one Hermes call, or submit_answer for a final answer),
 * and the in-process episode takes the same action so the next expert action follows the same state.
 */
export async function playExpertOverMcp(
  client: Client,
  env: Environment,
  runtime: EnvRuntime,
  task: { split: string; index: number },
): Promise<McpEpisodeLog> {
  let { session } = await env.startSession({ ...task, seed: 0 }, runtime);
  const calls: McpEpisodeLog["calls"] = [];
  for (let step = 0; step < env.limits.maxSteps; step++) {
    const { action } = await env.expert(session, runtime);
    const content = action.content ?? "";
    const parsed = parseHermesCalls(content);
    if (parsed.length === 0) {
      const result = await client.callTool({ name: "submit_answer", arguments: { answer: content } });
      calls.push({
        name: "submit_answer",
        arguments: { answer: content },
        text: resultText(result),
        isError: result.isError === true,
      });
      return { calls, final: result.structuredContent as Record<string, unknown> };
    }
    const call = parsed[0];
    if (parsed.length !== 1 || !call?.ok)
      throw new Error(`the expert's action is not one tool call: ${content}`);
    const args = call.arguments as Record<string, unknown>;
    const result = await client.callTool({ name: call.name, arguments: args });
    calls.push({
      name: call.name,
      arguments: args,
      text: resultText(result),
      isError: result.isError === true,
    });
    if ((result.structuredContent as { done?: boolean } | undefined)?.done) {
      return { calls, final: result.structuredContent as Record<string, unknown> };
    }
    session = (await env.step({ session, action }, runtime)).session;
  }
  throw new Error("the expert did not finish within the step limit");
}
