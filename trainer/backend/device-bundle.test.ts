import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * The device check's two programs bundle as `device-bundle.sh` bundles them: one import of a module
 * esbuild can't bundle (a native `.node` binding, a `.wasm` file) breaks the bundle a GPU machine
 * runs, which nothing else in `npm test` would notice.
 */
describe("the webgpu device check's bundle", () => {
  it.each(["trainer/testing/webgpu-device-check.ts", "tests/bench/trainer.ts"])(
    "%s bundles for node with only webgpu left outside",
    async (entry) => {
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        external: ["webgpu"],
        write: false,
        logLevel: "silent",
      }).catch((e: { errors?: { text: string }[] }) => ({ errors: e.errors ?? [{ text: String(e) }] }));
      expect(result.errors.map((e) => e.text)).toEqual([]);
    },
  );
});
