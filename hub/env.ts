import type { drizzle } from "drizzle-orm/d1";

export const SCOPES = ["read", "publish", "eval", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** The subset of the Workers Rate Limiting binding the hub uses. */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** Bindings of the hub worker (wrangler.toml, secrets, `.dev.vars`). */
export type HubBindings = {
  DB: Parameters<typeof drizzle>[0];
  /** Bootstrap secret: may create teams and their tokens; nothing else. */
  HUB_ADMIN_TOKEN?: string;
  /** Per-token (or per-IP for anonymous reads) limiter; absent means no limit. */
  HUB_RATE_LIMIT?: RateLimiter;
  /** The limiter's period in seconds, sent as Retry-After on 429; default 60. */
  HUB_RATE_LIMIT_PERIOD?: string;
  /** Fewest tasks a run must cover to enter a leaderboard; default 10. */
  HUB_LEADERBOARD_MIN_TASKS?: string;
  /** Seals the built-in envs' sessions and, under its own derived key, the hub's evaluation handles. */
  EDGEGYM_SESSION_KEY?: string;
  [binding: string]: unknown;
};

/** Who is calling: nobody, the bootstrap secret, or a team's API token. */
export type Principal =
  | { kind: "anonymous" }
  | { kind: "bootstrap" }
  | { kind: "token"; tokenId: string; team: string; scopes: readonly Scope[] };

export type AppEnv = {
  Bindings: HubBindings;
  Variables: { principal: Principal; requestId: string };
};
