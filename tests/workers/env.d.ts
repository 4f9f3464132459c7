import type { D1Migration } from "@cloudflare/vitest-plugin";

declare global {
  namespace Cloudflare {
    interface Env {
      DB: D1Database;
      TEST_MIGRATIONS: D1Migration[];
      EDGEGYM_SESSION_KEY: string;
      EDGEGYM_SIGNING_KEY: string;
      HUB_ADMIN_TOKEN: string;
      HUB_RATE_LIMIT: RateLimit;
      HUB_TIGHT_LIMIT: RateLimit;
      HUB_EMPTY_DB: D1Database;
      HUB_TEST_STALL_URL: string;
      HUB_TEST_HOSTILE_URL: string;
      HUB_BUNDLES: R2Bucket;
      LOADER: WorkerLoader;
    }
  }
}
