import { type ClaimAnswer, type LedgerOp, ledgerName, ledgerOp } from "./client-ledger.js";
import type { Admission, McpEpisode, McpSessionStore } from "./session-store.js";

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

type SessionOp =
  | { op: "create"; episode: McpEpisode; now: number; owner?: { client: string; session: string } }
  | { op: "get"; now: number }
  | { op: "update"; expectedStep: number; episode: McpEpisode; now: number }
  | { op: "delete" }
  | { op: "evict" };
type Op = SessionOp | LedgerOp;

function namespaceOf(bindings: Readonly<Record<string, unknown>> | undefined): Namespace | undefined {
  const ns = bindings?.[MCP_SESSIONS_BINDING] as Namespace | undefined;
  return ns && typeof ns.idFromName === "function" ? ns : undefined;
}

async function send<T>(ns: Namespace, name: string, op: Op): Promise<T> {
  const res = await ns
    .get(ns.idFromName(name))
    .fetch(new Request("https://mcp-session/", { method: "POST", body: JSON.stringify(op) }));
  if (!res.ok) throw new Error(`MCP session object answered HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * One MCP session per Durable Object (named by the session id): any Worker instance anywhere reaches
 * the same object, and the object handles one request at a time, so `update`'s compare-and-set is
 * atomic. An alarm at the episode's expiry deletes its storage, so nothing outlives the session. The
 * same class also keeps each client's ledger (client-ledger.ts), under the ledger's own name, so
 * wrangler.toml binds one class; each session tells its owner's ledger when it ends or finishes.
 */
export class McpSessionObject {
  readonly #storage: Storage;
  readonly #ns: Namespace | undefined;

  constructor(state: { storage: Storage }, env: Readonly<Record<string, unknown>> | undefined) {
    this.#storage = state.storage;
    this.#ns = namespaceOf(env);
  }

  async fetch(request: Request): Promise<Response> {
    const op = (await request.json()) as Op;
    if (op.op === "claim" || op.op === "release" || op.op === "finished") {
      return Response.json(await ledgerOp(this.#storage, op, this.#sessions()));
    }
    const current = async (now: number) => {
      const e = await this.#storage.get<McpEpisode>("episode");
      if (e && e.expiresAt <= now) {
        await this.#end();
        return undefined;
      }
      return e;
    };
    switch (op.op) {
      case "create":
      case "update": {
        const was = op.op === "update" ? await current(op.now) : undefined;
        if (op.op === "update" && was?.step !== op.expectedStep) return Response.json({ ok: false });
        await this.#storage.put("episode", op.episode);
        if (op.op === "create" && op.owner) await this.#storage.put("owner", op.owner);
        await this.#storage.setAlarm(op.episode.expiresAt);
        if (op.episode.done && was && !was.done) await this.#tellOwner("finished");
        return Response.json({ ok: true });
      }
      case "get":
        return Response.json({ episode: (await current(op.now)) ?? null });
      case "delete": {
        const existed = (await this.#storage.get("episode")) !== undefined;
        await this.#end();
        return Response.json({ ok: existed });
      }
      case "evict":
        await this.#storage.deleteAll();
        return Response.json({ ok: true });
    }
  }

  async alarm(): Promise<void> {
    await this.#end();
  }

  async #end(): Promise<void> {
    await this.#tellOwner("release");
    await this.#storage.deleteAll();
  }

  /** A lost note is repaired by the ledger itself (it asks sessions at the bound), so it is not fatal. */
  async #tellOwner(note: "release" | "finished"): Promise<void> {
    const owner = await this.#storage.get<{ client: string; session: string }>("owner");
    if (!owner || !this.#ns) return;
    try {
      await send(this.#ns, ledgerName(owner.client), { op: note, session: owner.session });
    } catch (e) {
      console.error("edgegym: MCP client ledger unreachable", e);
    }
  }

  #sessions() {
    const ns = this.#ns;
    return {
      state: async (session: string, now: number) => {
        if (!ns) return undefined;
        const { episode } = await send<{ episode: McpEpisode | null }>(ns, session, { op: "get", now });
        return episode ? { expiresAt: episode.expiresAt, done: episode.done } : undefined;
      },
      evict: async (session: string) => {
        if (ns) await send(ns, session, { op: "evict" });
      },
    };
  }
}

/**
 * The Durable Object store when `bindings` has the namespace, else undefined. A `client` given to
 * `create` is held to `maxPerClient` sessions by its ledger.
 */
export function durableSessionStore(
  bindings: Readonly<Record<string, unknown>>,
  maxPerClient: number,
): McpSessionStore | undefined {
  const ns = namespaceOf(bindings);
  if (!ns) return undefined;
  return {
    create: async (id, episode, now, client): Promise<Admission> => {
      if (client !== undefined) {
        const claim = {
          op: "claim",
          session: id,
          expiresAt: episode.expiresAt,
          now,
          max: maxPerClient,
        } as const;
        const answer = await send<ClaimAnswer>(ns, ledgerName(client), claim);
        if (!answer.ok)
          return { ok: false, reason: "client", limit: maxPerClient, retryAfterMs: answer.retryAfterMs };
      }
      const owner = client === undefined ? {} : { owner: { client, session: id } };
      await send(ns, id, { op: "create", episode, now, ...owner });
      return { ok: true };
    },
    get: async (id, now) =>
      (await send<{ episode: McpEpisode | null }>(ns, id, { op: "get", now })).episode ?? undefined,
    update: async (id, expectedStep, episode, now) =>
      (await send<{ ok: boolean }>(ns, id, { op: "update", expectedStep, episode, now })).ok,
    delete: async (id) => (await send<{ ok: boolean }>(ns, id, { op: "delete" })).ok,
  };
}
