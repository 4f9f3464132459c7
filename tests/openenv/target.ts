import { expect } from "vitest";
import { OpenEnvResult, OpenEnvState } from "../../shared/openenv.js";
import { ExpertResponse } from "../../shared/protocol.js";

/** A reply from OpenEnv's `/ws`, parsed. */
export type Reply = { type: string; data: Record<string, unknown> };

/** One open `/ws` connection, from whatever client the host's tests can use. */
export type OpenEnvSocket = {
  send(message: unknown): void;
  /** The next reply, in order; rejects if the socket closes first. */
  next(): Promise<Reply>;
  /** Resolves with the close code once the server has closed the socket. */
  closed: Promise<number>;
  close(): void;
};

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** What the OpenEnv suite needs to reach one env: its base URL, HTTP, and a way to open `/ws`. */
export type OpenEnvTarget = {
  baseUrl: string;
  fetch?: FetchLike;
  connect(url: string): Promise<OpenEnvSocket>;
  close?: () => Promise<void> | void;
};

/** A queue of replies over any socket that delivers text messages and a close. */
export function replyQueue(): {
  push(text: string): void;
  end(code: number): void;
  socket: Pick<OpenEnvSocket, "next" | "closed">;
} {
  const replies: Reply[] = [];
  const waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  let ended: number | undefined;
  let closedResolve: (code: number) => void = () => {};
  const closed = new Promise<number>((r) => {
    closedResolve = r;
  });
  return {
    push(text) {
      const reply = JSON.parse(text) as Reply;
      const w = waiting.shift();
      if (w) w.resolve(reply);
      else replies.push(reply);
    },
    end(code) {
      ended = code;
      closedResolve(code);
      for (const w of waiting.splice(0)) w.reject(new Error(`socket closed (${code}) before a reply`));
    },
    socket: {
      next: () => {
        const r = replies.shift();
        if (r) return Promise.resolve(r);
        if (ended !== undefined) return Promise.reject(new Error(`socket closed (${ended})`));
        return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
      },
      closed,
    },
  };
}

/** The ws:// URL of an env's `/ws` from its http:// base. */
export const socketUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, "ws")}/ws`;

/** Sends one message and returns its reply, checked against OpenEnv's reply types. */
export async function ask(ws: OpenEnvSocket, message: unknown): Promise<Reply> {
  ws.send(message);
  const reply = await ws.next();
  expect(["observation", "state", "error", "mcp"]).toContain(reply.type);
  expect(Object.keys(reply).sort()).toEqual(["data", "type"]);
  if (reply.type === "observation") OpenEnvResult.parse(reply.data);
  if (reply.type === "state") OpenEnvState.parse(reply.data);
  return reply;
}

export const observation = (reply: Reply) => {
  expect(reply.type, JSON.stringify(reply.data)).toBe("observation");
  return OpenEnvResult.parse(reply.data);
};

export const errorCode = (reply: Reply) => {
  expect(reply.type).toBe("error");
  expect(typeof reply.data.message).toBe("string");
  return reply.data.code;
};

/** The expert's next action for a token, through the env's own edgegym/v1 `/v1/expert`. */
export async function expertAction(target: OpenEnvTarget, token: string): Promise<Record<string, unknown>> {
  const send = target.fetch ?? fetch;
  const res = await send(`${target.baseUrl}/v1/expert`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ session: token }),
  });
  expect(res.status).toBe(200);
  return ExpertResponse.parse(await res.json()).action as Record<string, unknown>;
}

/**
 * Plays one train episode to its end over `/ws` with the expert's actions, as OpenEnv's
 * `GenericEnvClient` would send them, and returns the last observation and the state after it.
 */
export async function playToEnd(target: OpenEnvTarget, ws: OpenEnvSocket, index = 0) {
  let result = observation(await ask(ws, { type: "reset", data: { split: "train", index } }));
  expect(result.done).toBe(false);
  expect(result.reward).toBeNull();
  let steps = 0;
  let total = 0;
  while (!result.done) {
    const token = result.observation.metadata.session as string;
    result = observation(await ask(ws, { type: "step", data: await expertAction(target, token) }));
    steps++;
    total += result.reward ?? 0;
    expect(steps).toBeLessThanOrEqual(64);
  }
  const state = OpenEnvState.parse((await ask(ws, { type: "state" })).data);
  return { result, state, steps, total };
}
