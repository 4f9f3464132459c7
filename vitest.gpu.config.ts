import { defineConfig } from "vitest/config";

/**
 * `npm run test:gpu`: the webgpu backend's tests (`*.gpu.test.ts`), on the adapter Dawn finds: a GPU's
 * Vulkan driver, or lavapipe from `.ci/lavapipe.sh` (then `. .edgegym/lavapipe/env.sh` first). They
 * fail when there is no adapter. `npm test` leaves them out.
 */
export default defineConfig({
  test: {
    name: "gpu",
    include: ["trainer/**/*.gpu.test.ts"],
    // One device: the files run one after another, each in a process of its own (a device error
    // poisons the device it happened on).
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
