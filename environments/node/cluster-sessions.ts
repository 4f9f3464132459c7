import type { Cluster, Worker } from "node:cluster";
import type { Admission, McpEpisode, McpSessionStore } from "../kit/mcp/session-store.js";
import { MemorySessionStore } from "../kit/mcp/session-store.js";

/**
 * MCP sessions for `npm run envs` with several processes: node:cluster hands each connection to any
 * worker, so one MCP session's calls reach different processes. The primary holds the one bounded
 * store; workers ask it over the cluster's IPC channel. Everything else stays stateless.
 */
const TAG = "edgegym:mcp-sessions";
/** An IPC answer slower than this fails the call rather than hanging it. */
const IPC_DEADLINE_MS = 5_000;

type Method = "create" | "get" | "update" | "delete";
type Ask = { tag: typeof TAG; seq: number; method: Method; args: unknown[] };
type Answer = { tag: typeof TAG; seq: number; value?: unknown; error?: string };

const isAsk = (m: unknown): m is Ask => (m as Ask | null)?.tag === TAG && typeof (m as Ask).seq === "number";

/** In the primary: answers every worker's store calls from one in-memory store. */
export function serveClusterSessions(
  cluster: Cluster,
  store: McpSessionStore = new MemorySessionStore(),
): void {
  cluster.on("message", (worker: Worker, message: unknown) => {
    if (!isAsk(message)) return;
    const call = store[message.method] as (...a: unknown[]) => Promise<unknown>;
    call.apply(store, message.args).then(
      (value) => worker.send({ tag: TAG, seq: message.seq, value } satisfies Answer),
      (e: unknown) => worker.send({ tag: TAG, seq: message.seq, error: String(e) } satisfies Answer),
    );
  });
}

/** In a worker: a store whose calls go to the primary. */
export class ClusterSessionStore implements McpSessionStore {
  #seq = 0;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(private readonly channel: NodeJS.Process = process) {
    channel.on("message", (m: unknown) => {
      const a = m as Answer;
      if (a?.tag !== TAG) return;
      const p = this.#pending.get(a.seq);
      if (!p) return;
      this.#pending.delete(a.seq);
      if (a.error !== undefined) p.reject(new Error(`MCP session store: ${a.error}`));
      else p.resolve(a.value);
    });
  }

  #ask<T>(method: Method, args: unknown[]): Promise<T> {
    const seq = ++this.#seq;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(seq);
        reject(new Error(`MCP session store: no answer from the primary within ${IPC_DEADLINE_MS} ms`));
      }, IPC_DEADLINE_MS);
      this.#pending.set(seq, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.channel.send?.({ tag: TAG, seq, method, args } satisfies Ask);
    });
  }

  create(id: string, episode: McpEpisode, now: number, client?: string): Promise<Admission> {
    // Left out rather than sent as undefined, which IPC's JSON would turn into null.
    return this.#ask("create", client === undefined ? [id, episode, now] : [id, episode, now, client]);
  }
  async get(id: string, now: number): Promise<McpEpisode | undefined> {
    // IPC turns undefined into a missing field; null comes back for "no such session".
    return (await this.#ask<McpEpisode | null | undefined>("get", [id, now])) ?? undefined;
  }
  update(id: string, expectedStep: number, next: McpEpisode, now: number): Promise<boolean> {
    return this.#ask("update", [id, expectedStep, next, now]);
  }
  delete(id: string): Promise<boolean> {
    return this.#ask("delete", [id]);
  }
}
