import { describe, expect, it } from "vitest";
import { EvalConfig } from "../eval/config.js";
import { parseRecipe } from "../pipeline/recipe.js";
import { resolveTrainConfig } from "../rl/config.js";
import { SftConfig } from "../sft/config.js";
import { nearestKey, resolveConfig } from "./parse-config.js";

describe("unknown config keys are refused with the nearest valid key", () => {
  it("train: --set learningRate=1e-3 → did you mean lr?", () => {
    expect(resolveTrainConfig({}, ["learningRate=1e-3"])).toEqual({
      ok: false,
      error: "unknown key learningRate; did you mean lr?",
    });
    expect(resolveTrainConfig({ iteratons: 3 }, [])).toEqual({
      ok: false,
      error: "unknown key iteratons; did you mean iterations?",
    });
    expect(resolveTrainConfig({}, ["model.dmodel=32"])).toEqual({
      ok: false,
      error: "unknown key model.dmodel; did you mean dModel?",
    });
  });

  it("sft and eval: the same, and no guess when nothing is near", () => {
    expect(resolveConfig(SftConfig, {}, ["epoch=2"])).toEqual({
      ok: false,
      error: "unknown key epoch; did you mean epochs?",
    });
    expect(resolveConfig(EvalConfig, { env: "local:calculator", policy: "p" }, ["maxTokens=9"])).toEqual({
      ok: false,
      error: "unknown key maxTokens; did you mean maxNewTokens?",
    });
    expect(resolveConfig(EvalConfig, { env: "local:calculator", policy: "p" }, ["zzzzzzzz=1"])).toEqual({
      ok: false,
      error: "unknown key zzzzzzzz",
    });
  });

  it("recipes: at the top level and inside sft, rl, eval and the model shape", () => {
    const base = { description: "d", env: "edgegym/calculator@1.0.0" };
    expect(parseRecipe({ ...base, segments: 2 }, "r.json")).toEqual({
      ok: false,
      error: "r.json: unknown key segments; did you mean segment?",
    });
    expect(parseRecipe({ ...base, rl: { learningRate: 1e-3 } })).toMatchObject({
      error: "recipe: unknown key rl.learningRate; did you mean lr?",
    });
    expect(parseRecipe({ ...base, sft: { model: { nLayer: 2 } } })).toMatchObject({
      error: "recipe: unknown key sft.model.nLayer; did you mean nLayers?",
    });
    expect(parseRecipe({ ...base, eval: { splt: "test" } })).toMatchObject({
      error: "recipe: unknown key eval.splt; did you mean split?",
    });
  });

  it("nearestKey: camelCase initials first, then edit distance under half the key's length", () => {
    expect(nearestKey("learningRate", ["lr", "lambda", "clipLow"])).toBe("lr");
    // "lamda" → "lambda" is one insertion; 1 ≤ max(2, ⌊5/2⌋) = 2.
    expect(nearestKey("lamda", ["lr", "lambda"])).toBe("lambda");
    // "foo" → "lr" needs 3 edits > max(2, ⌊3/2⌋) = 2: no suggestion.
    expect(nearestKey("foo", ["lr"])).toBeUndefined();
  });
});
