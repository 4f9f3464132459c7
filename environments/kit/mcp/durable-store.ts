import type { McpEpisode, McpSessionStore } from "./session-store.js";

/** The Worker binding of the Durable Object namespace that holds MCP sessions (see wrangler.toml). */
export const MCP_SESSIONS_BINDING = "EDGEGYM_MCP_SESSIONS";

// Structural types of the few Workers APIs used here, so this module also typechecks (and is inert)
// on Node, where the kit runs without `@cloudflare/workers-types`.
type Stub = { fetch(request: Request): Promise<Response> };
type Namespace = { idFromName(name: string): unknown; get(id: unknown): Stub };
type Storage = {
  get<T>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(time: number): Promise<void>;
};

type Op =
  | { op: "create"; episode: McpEpisode; now: number }
  | { op: "get"; now: number }
  | { op: "update"; expectedStep: number; episode: McpEpisode; now: number }
  | { op: "delete" };

/**
 * One MCP session per Durable Object (named by the session id): any Worker instance anywhere reaches
 * the same object, and the object handles one request at a time, so `update`'s compare-and-set is
 * atomic. An alarm at the episode's expiry deletes its storage, so nothing outlives the session.
 */
export class McpSessionObject {
  readonly #storage: Storage;

  constructor(state: { storage: Storage }, _env: unknown) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const op = (await request.json()) as Op;
    const current = async (now: number) => {
      const e = await this.#storage.get<McpEpisode>("episode");
      if (e && e.expiresAt <= now) {
        await this.#storage.deleteAll();
        return undefined;
      }
      return e;
    };
    switch (op.op) {
      case "create":
      case "update": {
        if (op.op === "update" && (await current(op.now))?.step !== op.expectedStep) {
          return Response.json({ ok: false });
        }
        await this.#storage.put("episode", op.episode);
        await this.#storage.setAlarm(op.episode.expiresAt);
        return Response.json({ ok: true });
      }
      case "get":
        return Response.json({ episode: (await current(op.now)) ?? null });
      case "delete": {
        const existed = (await this.#storage.get("episode")) !== undefined;
        await this.#storage.deleteAll();
        return Response.json({ ok: existed });
      }
    }
  }

  async alarm(): Promise<void> {
    await this.#storage.deleteAll();
  }
}

/** The Durable Object store when `bindings` has the namespace, else undefined. */
export function durableSessionStore(
  bindings: Readonly<Record<string, unknown>>,
): McpSessionStore | undefined {
  const ns = bindings[MCP_SESSIONS_BINDING] as Namespace | undefined;
  if (!ns || typeof ns.idFromName !== "function") return undefined;
  const call = async <T>(id: string, op: Op): Promise<T> => {
    const stub = ns.get(ns.idFromName(id));
    const res = await stub.fetch(
      new Request("https://mcp-session/", { method: "POST", body: JSON.stringify(op) }),
    );
    if (!res.ok) throw new Error(`MCP session object answered HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    create: async (id, episode, now) => {
      await call(id, { op: "create", episode, now });
    },
    get: async (id, now) =>
      (await call<{ episode: McpEpisode | null }>(id, { op: "get", now })).episode ?? undefined,
    update: async (id, expectedStep, episode, now) =>
      (await call<{ ok: boolean }>(id, { op: "update", expectedStep, episode, now })).ok,
    delete: async (id) => (await call<{ ok: boolean }>(id, { op: "delete" })).ok,
  };
}
