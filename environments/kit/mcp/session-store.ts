import type { TaskRef } from "../../../shared/protocol.js";
import { ExpiryQueue } from "./expiry-queue.js";

/**
 * One MCP session's episode. MCP fixes `Mcp-Session-Id` for the whole session while the sealed
 * edgegym token changes at every step, so the current token is kept here between calls. Nothing in
 * it is secret beyond the token, which is sealed already.
 */
export type McpEpisode = {
  /** The episode's current sealed token (edgegym/v1 `session`). */
  token: string;
  /** Steps taken so far; an update must name the step it started from (see `update`). */
  step: number;
  done: boolean;
  episodeId: string;
  task: TaskRef;
  /** The first observation: the system prompt and the user's task, readable as prompt and resources. */
  system: string;
  user: string;
  return: number;
  /** Set when the episode ended. */
  reward?: number;
  receipt?: string;
  /** When the store forgets it (ms): the token's own expiry, renewed at every step like the token's. */
  expiresAt: number;
};

/**
 * Whether a new session was taken. A store never makes room by ending another client's live
 * episode: it refuses instead, saying when a place may free up. `client`: this client already holds
 * its most sessions; `full`: the store does.
 */
export type Admission =
  | { ok: true }
  | { ok: false; reason: "client" | "full"; limit: number; retryAfterMs: number };

/**
 * Where MCP sessions' episodes live between calls. Every implementation is bounded: records expire
 * at `expiresAt`, and each client (`create`'s `client`: an address or a hub caller) may hold at
 * most a fixed number; the in-memory one also caps how many it holds in all.
 */
export interface McpSessionStore {
  /**
   * Takes the new session unless `client` holds its most or the store is full. To make room it may
   * forget a *finished* episode (the client's own first, then the one idle longest; its result was
   * delivered by the call that ended it), never one still being played.
   */
  create(id: string, episode: McpEpisode, now: number, client?: string): Promise<Admission>;
  /** The episode, or undefined when it never existed, expired or was evicted. */
  get(id: string, now: number): Promise<McpEpisode | undefined>;
  /**
   * Replaces the episode only if it is still at `expectedStep`: two calls racing on one session must
   * not both advance it from the same token, so the loser is told instead of silently forking.
   */
  update(id: string, expectedStep: number, next: McpEpisode, now: number): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

/** Most sessions one in-memory store holds by default (about 2–4 KB each). */
export const DEFAULT_MAX_SESSIONS = 10_000;
/**
 * Most sessions one client holds by default: well above an evaluation's concurrency, and a hundredth
 * of the store, so filling it takes a hundred clients, not one.
 */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 100;

type Held = { episode: McpEpisode; client: string | undefined };

/**
 * An in-memory store for one process (Node, or workerd without the Durable Object binding). Expired
 * records are swept in expiry order (each its own TTL, see `ExpiryQueue`); per client, and among
 * finished episodes, Maps keep ids in the order they were last written, so the first finished one is
 * the one idle longest.
 */
export class MemorySessionStore implements McpSessionStore {
  readonly #records = new Map<string, Held>();
  readonly #byClient = new Map<string, Set<string>>();
  readonly #finished = new Set<string>();
  readonly #expiries = new ExpiryQueue();
  readonly #max: number;
  readonly #perClient: number;

  constructor(maxSessions = DEFAULT_MAX_SESSIONS, maxPerClient = DEFAULT_MAX_SESSIONS_PER_CLIENT) {
    this.#max = Math.max(1, maxSessions);
    this.#perClient = Math.max(1, maxPerClient);
  }

  get size(): number {
    return this.#records.size;
  }

  async create(id: string, episode: McpEpisode, now: number, client?: string): Promise<Admission> {
    this.#sweep(now);
    const held = client === undefined ? undefined : this.#byClient.get(client);
    if (held && held.size >= this.#perClient) {
      const done = first(held, (h) => this.#records.get(h)?.episode.done === true);
      if (done === undefined) {
        const soonest = Math.min(...[...held].map((h) => this.#records.get(h)?.episode.expiresAt ?? now));
        return { ok: false, reason: "client", limit: this.#perClient, retryAfterMs: soonest - now };
      }
      this.#remove(done);
    }
    if (this.#records.size >= this.#max) {
      const done = first(this.#finished, () => true);
      if (done === undefined) {
        const soonest = this.#expiries.peek() ?? now;
        return { ok: false, reason: "full", limit: this.#max, retryAfterMs: soonest - now };
      }
      this.#remove(done);
    }
    this.#write(id, { episode, client });
    return { ok: true };
  }

  async get(id: string, now: number): Promise<McpEpisode | undefined> {
    return this.#current(id, now)?.episode;
  }

  async update(id: string, expectedStep: number, next: McpEpisode, now: number): Promise<boolean> {
    // No await between the check and the write: two updates in flight must not both see the old step.
    const current = this.#current(id, now);
    if (!current || current.episode.step !== expectedStep) return false;
    this.#write(id, { episode: next, client: current.client });
    return true;
  }

  async delete(id: string): Promise<boolean> {
    return this.#remove(id);
  }

  /** Writes a record and moves it to the back of its client's and the finished orders. */
  #write(id: string, held: Held): void {
    this.#records.set(id, held);
    if (held.client !== undefined) {
      const ids = this.#byClient.get(held.client) ?? new Set<string>();
      this.#byClient.set(held.client, ids);
      ids.delete(id);
      ids.add(id);
    }
    this.#finished.delete(id);
    if (held.episode.done) this.#finished.add(id);
    this.#expiries.push(held.episode.expiresAt, id);
    // Stale queue entries (one per renewal) are dropped once they outnumber the records.
    if (this.#expiries.size > 2 * this.#records.size + 1024) {
      this.#expiries.compact([...this.#records].map(([k, h]) => [h.episode.expiresAt, k]));
    }
  }

  #remove(id: string): boolean {
    const held = this.#records.get(id);
    if (!held) return false;
    this.#records.delete(id);
    this.#finished.delete(id);
    if (held.client !== undefined) {
      const ids = this.#byClient.get(held.client);
      ids?.delete(id);
      if (ids?.size === 0) this.#byClient.delete(held.client);
    }
    return true;
  }

  #current(id: string, now: number): Held | undefined {
    const held = this.#records.get(id);
    if (held && held.episode.expiresAt <= now) {
      this.#remove(id);
      return undefined;
    }
    return held;
  }

  #sweep(now: number): void {
    for (let id = this.#expiries.popDue(now); id !== undefined; id = this.#expiries.popDue(now)) {
      // A record renewed since this entry was queued expires later: its newer entry will come.
      this.#current(id, now);
    }
  }
}

function first<T>(items: Iterable<T>, test: (item: T) => boolean): T | undefined {
  for (const item of items) if (test(item)) return item;
  return undefined;
}
