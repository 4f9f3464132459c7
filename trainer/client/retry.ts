import { err, type Result } from "../../shared/result.js";

/** How the env client retries: exponential backoff with jitter, bounded attempts. */
export type RetryPolicy = {
  /** Attempts after the first one. */
  maxRetries: number;
  /** Backoff before retry k (0-based) is min(maxDelayMs, baseDelayMs·2^k), jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After the client honours; a longer one is capped here. */
  maxRetryAfterMs: number;
  /**
   * Time a call may spend waiting out 429s before they count as retries. A throttled run slows down
   * to the server's limit instead of losing episodes; unset, a 429 spends a retry like any failure.
   */
  rateLimitBudgetMs?: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
  rateLimitBudgetMs: 300_000,
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

/** One try of a call: its value, or why not (with the server's Retry-After when it sent one). */
export type AttemptOutcome<T, F> = Result<T, { failure: F; retryAfterMs?: number }>;

export type RetryingOptions<F> = {
  policy: RetryPolicy;
  /** Whether a failure may be tried again (a 4xx refusal may not). */
  retryable: (failure: F) => boolean;
  /** Called before each wait: the caller counts its retries by cause. */
  onRetry?: (failure: F) => void;
  random?: () => number;
};

/**
 * Tries `attempt` until it succeeds, fails in a way `retryable` refuses, or its retries are spent;
 * the last failure comes back with the number of attempts. Each wait honours Retry-After (capped)
 * and never undercuts half the backoff; 429s within `rateLimitBudgetMs` spend no retry.
 */
export async function retrying<T, F extends { kind: string }>(
  attempt: () => Promise<AttemptOutcome<T, F>>,
  opts: RetryingOptions<F>,
): Promise<Result<T, F & { attempts: number }>> {
  const { policy } = opts;
  let retries = 0;
  let throttledMs = 0;
  for (let attempts = 1; ; attempts++) {
    const outcome = await attempt();
    if (outcome.ok) return outcome;
    const { failure, retryAfterMs } = outcome.error;
    const throttled = failure.kind === "rate_limited" && throttledMs < (policy.rateLimitBudgetMs ?? 0);
    if (!opts.retryable(failure) || (!throttled && retries >= policy.maxRetries)) {
      return err({ ...failure, attempts });
    }
    opts.onRetry?.(failure);
    const backoff = backoffMs(Math.min(attempts - 1, 30), policy, opts.random);
    const wait =
      retryAfterMs === undefined
        ? backoff
        : Math.max(Math.min(retryAfterMs, policy.maxRetryAfterMs), backoff / 2);
    if (throttled) throttledMs += wait;
    else retries++;
    await sleep(wait);
  }
}
