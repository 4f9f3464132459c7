import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL_CONFIG, FRESH_MODEL_SHAPE, ModelShape, resolveModelConfig } from "./config.js";

describe("model defaults", () => {
  it("keeps only the shape fields a config gives, so a checkpoint's are not overridden by defaults", () => {
    expect(ModelShape.parse(undefined)).toEqual({});
    expect(ModelShape.parse({ dModel: 128 })).toEqual({ dModel: 128 });
    // The fresh shape train and SFT runs have always resolved to (trainer/checkpoint/load-policy.ts).
    expect(FRESH_MODEL_SHAPE).toEqual({
      dModel: 64,
      nLayers: 2,
      nHeads: 4,
      nKvHeads: 4,
      dFf: 176,
      contextLength: 384,
    });
  });

  it("fills the fields the fresh shape leaves out from the reference config, and the shapes fit", () => {
    const made = resolveModelConfig({ ...FRESH_MODEL_SHAPE });
    if (!made.ok) throw new Error(made.error);
    // Head dimension 64 / 4 = 16, even as RoPE needs; 4 heads share 4 KV heads.
    expect(made.value.dModel / made.value.nHeads).toBe(16);
    expect(made.value).toEqual({ ...DEFAULT_MODEL_CONFIG, ...FRESH_MODEL_SHAPE });
  });

  it("refuses an unknown shape key", () => {
    expect(ModelShape.safeParse({ dmodel: 64 }).success).toBe(false);
  });
});
