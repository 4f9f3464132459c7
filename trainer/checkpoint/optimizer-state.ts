import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { err, ok, type Result } from "../../shared/result.js";
import type { Weights } from "../model/weights.js";
import type { AdamMoments, NamedAdam, NamedTensor } from "../optim/named-adam.js";
import { createAdam } from "../optim/optimizer-step.js";
import { hfVariables } from "./hf-layout.js";
import type { StoredTensor } from "./safetensors.js";

/**
 * `optimizer.json`: Adam's hyperparameters, its step count, and the HF names of the variables whose
 * moments `optimizer.safetensors` holds as `m/<name>` and `v/<name>` (in the variable's own `[in, out]`
 * layout, not HF's). Names, not positions: engine variable names and the order in which a caller lists
 * gradients both change between processes.
 */
export const OptimizerFile = z.object({
  type: z.literal("adam"),
  learningRate: z.number().positive(),
  beta1: z.number(),
  beta2: z.number(),
  epsilon: z.number(),
  /** Steps taken; Adam's bias correction depends on it. */
  iterations: z.number().int().nonnegative(),
  variables: z.array(z.string()),
});
export type OptimizerFile = z.infer<typeof OptimizerFile>;

export interface OptimizerState {
  file: OptimizerFile;
  tensors: Map<string, StoredTensor>;
}

const stored = async (t: tf.Tensor): Promise<StoredTensor> => ({
  shape: [...t.shape],
  data: (await t.data()) as Float32Array,
});

/**
 * Adam's state keyed by the model's HF variable names. Works for any tfjs Adam (its slots carry the
 * engine name of their variable); an error when a slot belongs to a variable the model does not have.
 */
export async function encodeOptimizerState(
  optimizer: tf.AdamOptimizer,
  weights: Weights,
): Promise<Result<OptimizerState>> {
  const hfName = new Map([...hfVariables(weights)].map(([name, v]) => [v.name, name]));
  const [iter, ...slots] = await optimizer.getWeights();
  iter?.tensor.dispose();
  const half = slots.length / 2;
  const tensors = new Map<string, StoredTensor>();
  const variables: string[] = [];
  for (let i = 0; i < half; i++) {
    const m = slots[i] as NamedTensor;
    const v = slots[i + half] as NamedTensor;
    const engineName = m.name.replace(/\/m$/, "");
    const name = hfName.get(engineName);
    if (name === undefined || v.name !== `${engineName}/v`)
      return err(`the optimizer holds state for variable "${engineName}", which is not one of the model's`);
    variables.push(name);
    tensors.set(`m/${name}`, await stored(m.tensor));
    tensors.set(`v/${name}`, await stored(v.tensor));
  }
  // NamedAdam's host moments come as copies (its slots are not variables then): free them now.
  tf.dispose(slots.map((s) => s.tensor).filter((t) => !(t instanceof tf.Variable)));
  const c = optimizer.getConfig() as { learningRate: number; beta1: number; beta2: number; epsilon: number };
  const file: OptimizerFile = {
    type: "adam",
    learningRate: c.learningRate,
    beta1: c.beta1,
    beta2: c.beta2,
    epsilon: c.epsilon,
    iterations: optimizer.iterations,
    variables,
  };
  return ok({ file, tensors });
}

/**
 * A {@link NamedAdam} holding saved state for the variables of `weights`. Every saved entry must name
 * one of the model's variables and carry `m` and `v` of its shape; model variables without an entry
 * (a value head added after the save) start with zero moments, as they would in tfjs.
 */
export async function decodeOptimizerState(
  raw: Record<string, unknown>,
  tensors: ReadonlyMap<string, StoredTensor>,
  weights: Weights,
): Promise<Result<NamedAdam>> {
  if ("moments" in raw && !("variables" in raw))
    return err(
      "optimizer.json stores Adam moments by position (an older edgegym), which cannot be matched to variables; delete optimizer.json and optimizer.safetensors to continue with a fresh optimizer",
    );
  const parsed = OptimizerFile.safeParse(raw);
  if (!parsed.success) return err(`optimizer.json: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const file = parsed.data;
  const byName = hfVariables(weights);
  const moments: AdamMoments[] = [];
  const problems: string[] = [];
  for (const name of new Set(file.variables)) {
    const variable = byName.get(name);
    if (!variable) {
      problems.push(`state for ${name}, which the model does not have`);
      continue;
    }
    const [m, v] = [tensors.get(`m/${name}`), tensors.get(`v/${name}`)];
    const shape = variable.shape.join();
    if (!m || !v) problems.push(`no m/${name} and v/${name} in optimizer.safetensors`);
    else if (m.shape.join() !== shape || v.shape.join() !== shape)
      problems.push(`moments of ${name} have shape [${m.shape}], the variable [${variable.shape}]`);
    else if (!(m.data instanceof Float32Array && v.data instanceof Float32Array))
      problems.push(`moments of ${name} are not float32`);
    else
      moments.push({ variable: variable.name, m: tf.tensor(m.data, m.shape), v: tf.tensor(v.data, v.shape) });
  }
  if (problems.length > 0) {
    tf.dispose(moments.flatMap((x) => [x.m, x.v]));
    return err(`optimizer state: ${problems.join("; ")}`);
  }
  const adam = createAdam(file);
  await adam.restore(file.iterations, moments);
  tf.dispose(moments.flatMap((x) => [x.m, x.v]));
  return ok(adam);
}
