import { LRUCache } from "lru-cache";

/**
 * A small per-isolate cache with a time to live, for the gateway's hot path: a local D1 round trip
 * costs milliseconds, more than the whole per-step budget. Writes in this isolate clear the affected
 * cache at once; other isolates see a revocation within `ttlMs`. The size bound is lru-cache's
 * (least recently used goes first); the expiry is checked here against the caller's clock, so tests
 * control time and no timer is ever set (lru-cache's own TTL reads `performance.now()`).
 */
export class TtlCache<V> {
  private readonly entries: LRUCache<string, { value: V; until: number }>;

  /**
   * @param ttlMs how long an entry is served
   * @param max entries kept; the least recently used is dropped beyond it
   */
  constructor(
    private readonly ttlMs: number,
    max = 10_000,
  ) {
    this.entries = new LRUCache({ max });
  }

  get(key: string, now: number): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: V, now: number): void {
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}

/** How long a token or gateway resolution is reused: also the longest a revocation takes elsewhere. */
export const HOT_PATH_TTL_MS = 5_000;
