/** How the env client retries: exponential backoff with jitter, bounded attempts. */
export type RetryPolicy = {
  /** Attempts after the first one. */
  maxRetries: number;
  /** Backoff before retry k (0-based) is min(maxDelayMs, baseDelayMs·2^k), jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After the client honours; a longer one is capped here. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

/**
 * "Equal jitter" backoff: half of d = min(max, base·2^k) is fixed, the other half random, so retries
 * from many episodes spread out but never retry immediately. `random` is in [0, 1).
 */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const d = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return d / 2 + (d / 2) * random();
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
