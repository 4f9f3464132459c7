import { err, ok, type Result } from "../../shared/result.js";
import { Transformer } from "../model/transformer.js";
import { exportHfTensors, importHfTensors } from "./hf-layout.js";
import type { StoredTensor } from "./safetensors.js";
import type { Checkpoint } from "./types.js";

/** One layer of the deeper model: the old layer it copies, and whether its outputs start at zero. */
export type DepthSlot = { source: number; identity: boolean };

/**
 * Where the new layers go when `from` layers become `to` (block expansion, as in LLaMA Pro, Wu et al.
 * 2024). Copy k of the `to − from` new layers follows old layer ⌈(k + 1)·from / (to − from)⌉ − 1, the
 * last of its group when the old layers are split into `to − from` groups of about equal size. It copies
 * that layer with its attention output and MLP down projections at zero, so it adds nothing to the
 * residual stream: the deeper model computes what the old one did, and its new layers start from
 * working weights rather than noise.
 */
export function depthPlan(from: number, to: number): Result<DepthSlot[]> {
  if (!Number.isInteger(from) || from < 1) return err(`the checkpoint has ${from} layers`);
  if (!Number.isInteger(to) || to <= from || to > 4 * from)
    return err(`layers must be an integer above ${from} and at most ${4 * from}, got ${to}`);
  const added = to - from;
  const after = new Map<number, number>();
  for (let k = 0; k < added; k++) {
    const last = Math.ceil(((k + 1) * from) / added) - 1;
    after.set(last, (after.get(last) ?? 0) + 1);
  }
  const plan: DepthSlot[] = [];
  for (let i = 0; i < from; i++) {
    plan.push({ source: i, identity: false });
    for (let c = 0; c < (after.get(i) ?? 0); c++) plan.push({ source: i, identity: true });
  }
  return ok(plan);
}

/** The tensors of an identity copy that start at zero: what each half of the block adds to the stream. */
const ZEROED = new Set(["self_attn.o_proj.weight", "self_attn.o_proj.bias", "mlp.down_proj.weight"]);

/** HF tensors of the deeper model: every `model.layers.<i>.*` renumbered and copied per `plan`. */
export function expandTensors(
  tensors: ReadonlyMap<string, StoredTensor>,
  plan: readonly DepthSlot[],
): Map<string, StoredTensor> {
  const out = new Map<string, StoredTensor>();
  const layerName = /^model\.layers\.(\d+)\.(.+)$/;
  for (const [name, t] of tensors) if (!layerName.test(name)) out.set(name, t);
  plan.forEach((slot, j) => {
    for (const [name, t] of tensors) {
      const m = layerName.exec(name);
      if (!m || Number(m[1]) !== slot.source) continue;
      const part = m[2] as string;
      const data = slot.identity && ZEROED.has(part) ? new Float32Array(t.data.length) : t.data;
      out.set(`model.layers.${j}.${part}`, { shape: t.shape, data });
    }
  });
  return out;
}

/**
 * `checkpoint`'s model made `layers` deep by {@link depthPlan}, with its tokenizer and no optimizer
 * state (Adam's moments belong to the old shapes). The step count restarts at 0.
 */
export async function expandDepth(
  checkpoint: Checkpoint,
  layers: number,
): Promise<Result<{ checkpoint: Checkpoint; plan: DepthSlot[] }>> {
  const { model } = checkpoint;
  if (!(model instanceof Transformer)) return err("only models made by createModel can be expanded");
  const plan = depthPlan(model.config.nLayers, layers);
  if (!plan.ok) return plan;
  const config = { ...model.config, nLayers: layers };
  const weights = importHfTensors(
    expandTensors(await exportHfTensors(model.weights, model.config), plan.value),
    config,
  );
  if (!weights.ok) return err(weights.error);
  return ok({
    checkpoint: {
      model: new Transformer(config, weights.value),
      tokenizer: checkpoint.tokenizer,
      meta: { step: 0, expandedFrom: { layers: model.config.nLayers, plan: plan.value } },
    },
    plan: plan.value,
  });
}
