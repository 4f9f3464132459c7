import { describe, expect, it } from "vitest";
import { resolveTrainConfig, TrainConfig } from "./config.js";

describe("resolveTrainConfig", () => {
  it("fills every default", () => {
    const config = resolveTrainConfig({}, []);
    expect(config).toEqual({ ok: true, value: TrainConfig.parse({}) });
    expect(config.ok && config.value).toMatchObject({
      algorithm: "grpo",
      policyLoss: "ppo",
      aggregation: "token-mean",
    });
  });

  it("applies file values, then overrides, with dotted keys and JSON values", () => {
    const config = resolveTrainConfig({ algorithm: "rloo", iterations: 3 }, [
      "algorithm=steppo",
      "model.dModel=128",
      "renderTools=true",
      "out=runs/x",
    ]);
    expect(config.ok && config.value).toMatchObject({
      algorithm: "steppo",
      iterations: 3,
      renderTools: true,
      out: "runs/x",
      // Only the shape fields given: a fresh model fills the rest, a checkpoint keeps its own.
      model: { dModel: 128 },
    });
  });

  it("names the field of a bad value and rejects malformed overrides", () => {
    expect(resolveTrainConfig({}, ["algorithm=ppo2"])).toMatchObject({
      ok: false,
      error: expect.stringContaining("algorithm"),
    });
    expect(resolveTrainConfig({}, ["iterations=-1"])).toMatchObject({
      ok: false,
      error: expect.stringContaining("iterations"),
    });
    expect(resolveTrainConfig({}, ["iterations"])).toMatchObject({
      ok: false,
      error: expect.stringContaining("key=value"),
    });
  });
});
