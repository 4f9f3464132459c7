import type { TaskRef } from "../../../shared/protocol.js";

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
 * Where MCP sessions' episodes live between calls. Every implementation is bounded: records expire
 * at `expiresAt`, and the in-memory one also caps how many it holds.
 */
export interface McpSessionStore {
  create(id: string, episode: McpEpisode, now: number): Promise<void>;
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
 * An in-memory store for one process (Node, or workerd without the Durable Object binding). A Map
 * keeps records in the order they were last written; one environment has one TTL, so that is also
 * expiry order and expired records are swept from the front. At `maxSessions`, writing a new
 * session evicts the one idle longest, so memory stays bounded under any load.
 */
export class MemorySessionStore implements McpSessionStore {
  readonly #records = new Map<string, McpEpisode>();
  readonly #max: number;

  constructor(maxSessions = DEFAULT_MAX_SESSIONS) {
    this.#max = Math.max(1, maxSessions);
  }

  get size(): number {
    return this.#records.size;
  }

  async create(id: string, episode: McpEpisode, now: number): Promise<void> {
    this.#sweep(now);
    while (this.#records.size >= this.#max) {
      const oldest = this.#records.keys().next();
      if (oldest.done) break;
      this.#records.delete(oldest.value);
    }
    this.#records.set(id, episode);
  }

  async get(id: string, now: number): Promise<McpEpisode | undefined> {
    return this.#current(id, now);
  }

  async update(id: string, expectedStep: number, next: McpEpisode, now: number): Promise<boolean> {
    // No await between the check and the write: two updates in flight must not both see the old step.
    const current = this.#current(id, now);
    if (!current || current.step !== expectedStep) return false;
    // Delete then set: the record moves to the back, keeping the Map in expiry order.
    this.#records.delete(id);
    this.#records.set(id, next);
    return true;
  }

  async delete(id: string): Promise<boolean> {
    return this.#records.delete(id);
  }

  #current(id: string, now: number): McpEpisode | undefined {
    const e = this.#records.get(id);
    if (e && e.expiresAt <= now) {
      this.#records.delete(id);
      return undefined;
    }
    return e;
  }

  #sweep(now: number): void {
    for (const [id, e] of this.#records) {
      if (e.expiresAt > now) break;
      this.#records.delete(id);
    }
  }
}
