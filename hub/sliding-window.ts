/**
 * A per-key sliding-window rate limiter, in memory (one per hub app, so per isolate). Unlike a fixed
 * window, which lets `2 × limit` through when a burst straddles the boundary, it admits a request only
 * while fewer than `limit` were admitted in the trailing window, so no span of `period` ms ever holds
 * more than `limit` admissions.
 *
 * Each key keeps `BUCKETS + 1` counters of `period / BUCKETS` ms (O(1) memory, unlike a log of
 * timestamps). The counted span, from the start of the bucket `BUCKETS` before the current one up to
 * now, always covers the last `period` ms, so the bound is exact; the price is that a client pacing
 * exactly at the limit is held back by up to one bucket (`period / BUCKETS`, 5 %).
 * Written here rather than taken from a library because the limit must run on an injected clock (tests
 * cross a window boundary without waiting) and on Workers, where libraries keyed to timers do not.
 */
export const BUCKETS = 20;

type KeyState = { bucketMs: number; last: number; counts: Uint32Array };

export type Decision = { ok: true } | { ok: false; retryAfterMs: number };

export class SlidingWindow {
  private readonly keys = new Map<string, KeyState>();

  /** @param maxKeys keys tracked; the least recently seen is forgotten beyond it (bounded memory). */
  constructor(private readonly maxKeys = 10_000) {}

  /** Admits one request of `key` at `now` (ms) when fewer than `limit` were admitted in the last `periodMs`. */
  take(key: string, now: number, limit: number, periodMs: number): Decision {
    const bucketMs = periodMs / BUCKETS;
    let state = this.keys.get(key);
    if (state && state.bucketMs === bucketMs) {
      this.keys.delete(key); // re-inserted below: Map order is then least recently seen first
    } else {
      state = { bucketMs, last: Math.floor(now / bucketMs), counts: new Uint32Array(BUCKETS + 1) };
      this.keys.delete(key);
      if (this.keys.size >= this.maxKeys) {
        const oldest = this.keys.keys().next().value;
        if (oldest !== undefined) this.keys.delete(oldest);
      }
    }
    this.keys.set(key, state);
    // A clock that steps back is treated as standing still.
    const current = Math.max(state.last, Math.floor(now / bucketMs));
    const size = BUCKETS + 1;
    const slot = (bucket: number) => ((bucket % size) + size) % size;
    for (let b = Math.max(state.last + 1, current - BUCKETS); b <= current; b++) state.counts[slot(b)] = 0;
    state.last = current;
    let counted = 0;
    for (const n of state.counts) counted += n;
    if (counted < limit) {
      state.counts[slot(current)] = (state.counts[slot(current)] ?? 0) + 1;
      return { ok: true };
    }
    // The earliest bucket `current + k` whose window no longer holds the k oldest buckets' admissions.
    for (let k = 1; k <= size; k++) {
      counted -= state.counts[slot(current - BUCKETS + k - 1)] ?? 0;
      if (counted < limit) return { ok: false, retryAfterMs: (current + k) * bucketMs - now };
    }
    return { ok: false, retryAfterMs: (current + size) * bucketMs - now };
  }
}
