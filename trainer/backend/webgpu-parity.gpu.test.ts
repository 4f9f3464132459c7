import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARITY_CASES } from "../testing/webgpu-parity.js";
import { startWebGpu } from "./webgpu.js";

/** `npm run test:gpu`: webgpu against cpu (webgpu-parity.ts), figures printed as JSON for the record. */
describe("webgpu matches cpu", () => {
  const figures: Record<string, number> = {};
  beforeAll(async () => {
    const gpu = await startWebGpu({ allowSoftware: true });
    if (!gpu.ok) throw new Error(gpu.error);
    console.log(JSON.stringify({ webgpu_adapter: gpu.value }));
  });
  afterAll(() => {
    console.log(JSON.stringify({ webgpu_parity: figures }));
  });

  for (const [name, check] of Object.entries(PARITY_CASES))
    it(name, async () => {
      const got = await check();
      Object.assign(figures, got.figures);
      expect(got.failures).toEqual([]);
    });
});
