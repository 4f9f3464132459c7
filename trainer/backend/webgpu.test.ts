import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { noAdapter } from "./webgpu.js";

/**
 * The webgpu backend where Dawn finds no adapter; its parity tests against the cpu backend need a
 * Vulkan driver and run in `npm run test:gpu` (trainer/backend/*.gpu.test.ts, vitest.gpu.config.ts).
 */
console.info(
  "webgpu: the parity tests are `npm run test:gpu` (trainer/backend/*.gpu.test.ts); without a GPU, `bash .ci/lavapipe.sh` first",
);

/** `initBackend(name)` in a fresh Node process with `env`: Dawn reads the Vulkan variables at start. */
function initIn(name: string, env: NodeJS.ProcessEnv): unknown {
  const script = `const { initBackend } = await import("./trainer/backend/backend.ts");
console.log(JSON.stringify(await initBackend(${JSON.stringify(name)})));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env,
    encoding: "utf8",
    // Dawn's own warning ("Couldn't load Vulkan …") goes to stderr; the result is the last line.
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "null");
}

describe("webgpu without an adapter", () => {
  it("is refused with one line that says what to install", () => {
    const icd = "/nonexistent/vulkan/icd.json";
    const got = initIn("webgpu", { PATH: process.env.PATH, VK_DRIVER_FILES: icd, VK_ICD_FILENAMES: icd });
    expect(got).toEqual({
      ok: false,
      error: noAdapter({ VK_DRIVER_FILES: icd }),
    });
    expect(noAdapter({ VK_DRIVER_FILES: icd })).toBe(
      "webgpu: Dawn found no GPU adapter: the Vulkan driver named by VK_DRIVER_FILES (/nonexistent/vulkan/icd.json) " +
        "gave none; on NVIDIA install libvulkan1 and the driver's nvidia_icd.json (in a container, " +
        "NVIDIA_DRIVER_CAPABILITIES must include graphics), or run .ci/lavapipe.sh for a CPU Vulkan driver " +
        "(see docs/trainer.md)",
    );
  });

  it("names the variable that pointed at a driver, or the drivers the loader would find", () => {
    expect(noAdapter({ VK_ICD_FILENAMES: "/x/lvp_icd.json" })).toContain(
      "the Vulkan driver named by VK_ICD_FILENAMES (/x/lvp_icd.json) gave none",
    );
    expect(noAdapter({})).toMatch(
      /^webgpu: Dawn found no GPU adapter: (no Vulkan driver \(ICD\) is installed|the installed Vulkan drivers \(.+\) gave none);/,
    );
  });
});
