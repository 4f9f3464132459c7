import type { Variable } from "@tensorflow/tfjs-core";
import type { Result } from "../../shared/result.js";
import { createModel } from "./create-model.js";
import type { PolicyModel } from "./types.js";

/** A frozen copy of the policy's current weights: the reference of the KL term. */
export function frozenCopy(model: PolicyModel, seed: number): Result<PolicyModel> {
  const copy = createModel(model.config, { seed });
  if (!copy.ok) return copy;
  copy.value.trainableVariables.forEach((v, i) => {
    v.assign(model.trainableVariables[i] as Variable);
  });
  return copy;
}
