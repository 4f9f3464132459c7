import type { drizzle } from "drizzle-orm/d1";
import type { Scope } from "../shared/registry.js";

export type { Scope };

/** The subset of the Workers Rate Limiting binding the hub uses. */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The subset of an R2 bucket the hub uses for hosted bundles. */
export interface BundleBucket {
  put(key: string, value: string): Promise<unknown>;
  get(key: string): Promise<{ text(): Promise<string> } | null>;
}

/** A module as the Worker Loader takes it (one of its kinds). */
export type LoaderModule = { js: string } | { text: string } | { json: unknown } | { data: ArrayBuffer };

/** What the Worker Loader builds one sandboxed isolate from. */
export type LoaderCode = {
  compatibilityDate: string;
  compatibilityFlags?: string[];
  mainModule: string;
  modules: Record<string, LoaderModule>;
  env: Record<string, string>;
  /** `null`: no network; else the hub's outbound gate (a Fetcher from `ctx.exports`). */
  globalOutbound: unknown;
  limits?: { cpuMs?: number };
};

/** The subset of the Worker Loader binding (Dynamic Workers) the hub uses. */
export interface WorkerLoader {
  get(
    id: string,
    code: () => Promise<LoaderCode>,
  ): { getEntrypoint(): { fetch(request: Request): Promise<Response> } };
}

/** A numeric binding (a string variable) when it is a positive number, else `fallback`. */
export function positiveNumber(value: unknown, fallback: number): number {
  const n = Number(value);
  return typeof value === "string" && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Bindings of the hub worker (wrangler.toml, secrets, `.dev.vars`). */
export type HubBindings = {
  DB: Parameters<typeof drizzle>[0];
  /** Bootstrap secret: may create teams and their tokens; nothing else. */
  HUB_ADMIN_TOKEN?: string;
  /** Per-token (or per-IP for anonymous reads) limiter across isolates (deployed); absent: only the hub's own. */
  HUB_RATE_LIMIT?: RateLimiter;
  /** The rate limit's period in seconds (the sliding window's, and the binding's Retry-After); default 60. */
  HUB_RATE_LIMIT_PERIOD?: string;
  /** Requests per period per caller in the hub's own sliding window; default 1200, `0` turns it off. */
  HUB_RATE_LIMIT_REQUESTS?: string;
  /** `true` on a local hub only: endpoints on private, loopback and link-local addresses may be published. */
  HUB_ALLOW_PRIVATE_UPSTREAMS?: string;
  /** Deadline of the manifest fetch at publish, in ms; default 10000. */
  HUB_MANIFEST_TIMEOUT_MS?: string;
  /** Added to an env's `stepTimeoutMs` for each gateway call's deadline, in ms; default 5000. */
  HUB_UPSTREAM_MARGIN_MS?: string;
  /**
   * The hub's public origin (`https://hub.example.com`), which the web pages name in the URLs they
   * show. Unset: a hub reached on a loopback address names that address; any other names none.
   */
  HUB_ORIGIN?: string;
  /** Fewest tasks a run must cover to enter a leaderboard; default 10. */
  HUB_LEADERBOARD_MIN_TASKS?: string;
  /** Loads hosted environments' code into sandboxed isolates (wrangler.toml `[[worker_loaders]]`). */
  LOADER?: WorkerLoader;
  /** Hosted environments' bundles (wrangler.toml `[[r2_buckets]]`). */
  HUB_BUNDLES?: BundleBucket;
  /** Guard calls one hosted-env request may make (hub/hosted/sandbox-modules.ts); default 20000000. */
  HUB_HOSTED_TICKS?: string;
  /** CPU ms one hosted-env request may use where the runtime enforces it (Cloudflare); default 1000. */
  HUB_HOSTED_CPU_MS?: string;
  /** Seals the built-in envs' sessions and, under its own derived key, the hub's evaluation handles. */
  EDGEGYM_SESSION_KEY?: string;
  [binding: string]: unknown;
};

/** Who is calling: nobody, the bootstrap secret, or a team's API token. */
export type Principal =
  | { kind: "anonymous" }
  | { kind: "bootstrap" }
  | { kind: "token"; tokenId: string; team: string; scopes: readonly Scope[] };

/**
 * What a route takes from the hub app rather than from the platform, set on `c.var` for every request
 * by `provideDeps` (hub/route-app.ts): tests move the clock and route upstream calls back to the worker.
 */
export type HubDeps = {
  /** Clock in ms. */
  now: () => number;
  /** How external env endpoints are fetched. */
  fetch: (request: Request) => Promise<Response>;
  /** Checks this request against the caller's rate limit (for routes that do it themselves: the gateway). */
  limit: () => Promise<void>;
};

export type AppEnv = {
  Bindings: HubBindings;
  Variables: { principal: Principal; requestId: string } & HubDeps;
};
