import * as tf from "@tensorflow/tfjs-core";
import type { PolicyModel } from "../model/types.js";

/** The models a shard computes with: the policy and, when a KL term needs it, the frozen reference. */
export type ShardModels = { policy: PolicyModel; reference?: PolicyModel };

/** Adds `weight · value` (a scalar) to the metric `name`, summed over passes and shards. */
export type Note = (name: string, value: tf.Tensor, weight: number) => void;

/**
 * The loss of one pass of rows. Its input is plain data, since it crosses to worker threads by
 * structured clone. It returns the pass's loss already weighted by the pass's share of the step's
 * normaliser (its tokens over the step's tokens for a token mean), so the passes' gradients sum to
 * the step's gradient wherever each pass runs.
 */
export type PassLoss<I> = (models: ShardModels, input: I, note: Note) => tf.Scalar;

/** A forward computation over one shard (scoring): plain data in, plain data out. */
export type ShardForward<I, O> = (models: ShardModels, input: I) => O | Promise<O>;

/**
 * A function that worker threads can find again: `module` (its `import.meta.url`) exports the task
 * under `name`. Threads import the module themselves; functions cannot be posted.
 */
export type TaskRef = { module: string; name: string };
export type LossTask<I> = TaskRef & { loss: PassLoss<I> };
export type ForwardTask<I, O> = TaskRef & { forward: ShardForward<I, O> };

export function lossTask<I>(module: string, name: string, loss: PassLoss<I>): LossTask<I> {
  return { module, name, loss };
}

export function forwardTask<I, O>(
  module: string,
  name: string,
  forward: ShardForward<I, O>,
): ForwardTask<I, O> {
  return { module, name, forward };
}

/** A shard's summed gradient, by position in `trainableVariables` (null where no pass reached it). */
export type ShardGradients<G> = { grads: (G | null)[]; notes: Record<string, number> };

/**
 * The summed gradient of `inputs`' pass losses, one pass at a time (one pass's activations alive at
 * once), in input order, as the single-threaded step accumulates them.
 */
export async function shardGradients<I>(
  models: ShardModels,
  loss: PassLoss<I>,
  inputs: readonly I[],
): Promise<ShardGradients<tf.Tensor>> {
  const variables = models.policy.trainableVariables as tf.Variable[];
  const sums: (tf.Tensor | null)[] = variables.map(() => null);
  const notes: Record<string, number> = {};
  for (const input of inputs) {
    // Metric scalars are kept through the tape and read after it, so nothing waits on the backend in
    // the middle of the gradient.
    const noted: [string, tf.Tensor, number][] = [];
    const note: Note = (name, value, weight) => {
      // A copy: the noted scalar may be the loss itself, which variableGrads hands back to dispose.
      noted.push([name, tf.keep(tf.clone(value)), weight]);
    };
    const { value, grads } = tf.tidy(() => tf.variableGrads(() => loss(models, input, note), variables));
    value.dispose();
    for (const [name, v, weight] of noted)
      notes[name] = (notes[name] ?? 0) + weight * ((await v.data())[0] as number);
    tf.dispose(noted.map(([, v]) => v));
    variables.forEach((v, i) => {
      const g = grads[v.name];
      if (g === undefined) return;
      const prev = sums[i];
      sums[i] = prev ? tf.add(prev, g) : g;
      if (prev) tf.dispose([prev, g]);
    });
  }
  return { grads: sums, notes };
}

/** The task a thread was asked for, from its module's exports. */
export async function resolveTask(
  ref: TaskRef,
): Promise<Partial<LossTask<unknown> & ForwardTask<unknown, unknown>>> {
  const mod = (await import(ref.module)) as Record<string, unknown>;
  const task = mod[ref.name] as Partial<LossTask<unknown> & ForwardTask<unknown, unknown>> | undefined;
  if (task === undefined || (task.loss === undefined && task.forward === undefined))
    throw new Error(`${ref.module} exports no shard task named ${ref.name}`);
  return task;
}
