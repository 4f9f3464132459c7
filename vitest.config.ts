import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { testSecrets } from "./tests/support/secrets.js";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["{shared,environments,hub,trainer,tests}/**/*.test.ts"],
          exclude: ["**/*.workers.test.ts", "**/node_modules/**"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: await testSecrets() },
          })),
        ],
        test: {
          name: "workers",
          include: ["{shared,environments,hub,tests}/**/*.workers.test.ts"],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
