import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { generateSecrets } from "./environments/kit/secrets.js";

export default defineConfig({
  test: {
    // At least two: vitest's default is one fewer than the machine has, which on CI's two cores ran
    // the whole suite in one process, file after file (976 s at fb0ac48).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: "node",
          include: ["{shared,environments,hub,trainer,tests}/**/*.test.ts"],
          // The webgpu backend's tests need a Vulkan driver: `npm run test:gpu` (vitest.gpu.config.ts).
          exclude: ["**/*.workers.test.ts", "**/*.gpu.test.ts", "**/node_modules/**"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // The checkout's .edgegym/data.db is the developer's imported data, not the tests': a test
          // that serves `local:` envs or runs `npm run envs` gets this run's own file instead.
          env: { EDGEGYM_DATA_DB: join(mkdtempSync(join(tmpdir(), "edgegym-test-data-")), "data.db") },
        },
      },
      {
        plugins: [
          cloudflareTest(async ({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ...(await generateSecrets()),
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                HUB_ADMIN_TOKEN: "hub-test-bootstrap-secret",
                // As on a local hub: tests publish endpoints on 127.0.0.1 (the SSRF tests turn it off).
                HUB_ALLOW_PRIVATE_UPSTREAMS: "true",
                // A real server that never answers, for the hub's upstream deadlines (tests/hub/stall-server.ts).
                HUB_TEST_STALL_URL: inject("stallUrl"),
                HUB_TEST_HOSTILE_URL: inject("hostileUrl"),
              },
              d1Databases: ["DB", "HUB_EMPTY_DB"],
              // A tight limiter so the hub's 429 path is reached in a few requests.
              ratelimits: { HUB_TIGHT_LIMIT: { namespace_id: "1002", simple: { limit: 5, period: 10 } } },
            },
          })),
        ],
        test: {
          name: "workers",
          setupFiles: ["./tests/workers/apply-migrations.ts"],
          // The hosted-env tests push a real env bundle, built once in Node (tests/hub/hosted/build-bundles.ts).
          globalSetup: ["./tests/hub/stall-server.ts", "./tests/hub/hosted/build-bundles.ts"],
          include: ["{shared,environments,hub,tests}/**/*.workers.test.ts"],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
