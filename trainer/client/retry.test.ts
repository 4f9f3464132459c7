import { describe, expect, it } from "vitest";
import { err, ok } from "../../shared/result.js";
import { type AttemptOutcome, type RetryPolicy, retrying } from "./retry.js";

type Failure = { kind: "rate_limited" | "server_error" | "rejected" };

/** An attempt that fails with `failures[i]` on call i, then succeeds; it counts its calls. */
function scripted(failures: { kind: Failure["kind"]; retryAfterMs?: number }[]) {
  const state = { calls: 0 };
  const attempt = async (): Promise<AttemptOutcome<string, Failure>> => {
    const f = failures[state.calls++];
    if (f === undefined) return ok("done");
    return err({
      failure: { kind: f.kind },
      ...(f.retryAfterMs === undefined ? {} : { retryAfterMs: f.retryAfterMs }),
    });
  };
  return { state, attempt };
}

// Delays of a millisecond or two: the tests count attempts, never time.
const tiny: RetryPolicy = { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 10 };
const retryable = (f: Failure) => f.kind !== "rejected";

describe("retrying", () => {
  it("waits out 429s without spending retries while within the rate-limit budget", async () => {
    // Six 429s with Retry-After 1 ms: 6 ms of waiting, far under the 1,000 ms budget, and only
    // maxRetries = 1 retry to spend; the seventh call succeeds.
    const s = scripted(Array.from({ length: 6 }, () => ({ kind: "rate_limited" as const, retryAfterMs: 1 })));
    const r = await retrying(s.attempt, { policy: { ...tiny, rateLimitBudgetMs: 1_000 }, retryable });
    expect(r).toEqual({ ok: true, value: "done" });
    expect(s.state.calls).toBe(7);
  });

  it("counts a 429 as a retry when there is no budget (1 + maxRetries attempts)", async () => {
    const s = scripted(Array.from({ length: 6 }, () => ({ kind: "rate_limited" as const, retryAfterMs: 1 })));
    const r = await retrying(s.attempt, { policy: tiny, retryable });
    expect(r).toEqual({ ok: false, error: { kind: "rate_limited", attempts: 2 } });
    expect(s.state.calls).toBe(2);
  });

  it("spends retries once the time waited on 429s reaches the budget", async () => {
    // Retry-After 2 ms outweighs half of any backoff here (≤ 1 ms), so each wait is exactly 2 ms.
    // Budget 3 ms: wait 1 is free (0 < 3 → 2 waited), wait 2 is free (2 < 3 → 4), wait 3 spends the
    // one retry (4 ≥ 3), and call 4 finds no retry left: 4 attempts.
    const s = scripted(Array.from({ length: 9 }, () => ({ kind: "rate_limited" as const, retryAfterMs: 2 })));
    const r = await retrying(s.attempt, { policy: { ...tiny, rateLimitBudgetMs: 3 }, retryable });
    expect(r).toEqual({ ok: false, error: { kind: "rate_limited", attempts: 4 } });
  });

  it("never retries a failure the caller calls final, and reports each retry's cause", async () => {
    const causes: string[] = [];
    const s = scripted([{ kind: "server_error" }, { kind: "rejected" }]);
    const r = await retrying(s.attempt, {
      policy: { ...tiny, maxRetries: 5 },
      retryable,
      onRetry: (f) => causes.push(f.kind),
    });
    expect(r).toEqual({ ok: false, error: { kind: "rejected", attempts: 2 } });
    expect(causes).toEqual(["server_error"]);
  });
});
