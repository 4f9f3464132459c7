import * as tf from "@tensorflow/tfjs-core";
import { stopGradient } from "../algos/stop-gradient.js";
import { forwardHidden, lmHead } from "./forward.js";
import { generate } from "./generate.js";
import { matmul } from "./matmul.js";
import { disposeRope, type RopeTables, ropeTables } from "./rope.js";
import type {
  EvaluateOptions,
  Evaluation,
  ModelConfig,
  PolicyModel,
  SampleOptions,
  SampleResult,
} from "./types.js";
import { targetScores } from "./vocab-ops.js";
import { disposeWeights, initWeights, type Weights, weightList } from "./weights.js";

/** Qwen2/Llama-style decoder: RMSNorm, RoPE, SwiGLU, grouped-query attention. */
export class Transformer implements PolicyModel {
  readonly trainableVariables: readonly tf.Variable[];
  readonly valueVariables: readonly tf.Variable[];
  private readonly rope: RopeTables;

  constructor(
    readonly config: ModelConfig,
    readonly weights: Weights,
  ) {
    this.trainableVariables = weightList(weights);
    this.valueVariables = weights.valueHead ? [weights.valueHead.weight, weights.valueHead.bias] : [];
    this.rope = ropeTables(config);
  }

  static create(config: ModelConfig, seed: number): Transformer {
    return new Transformer(config, initWeights(config, seed));
  }

  logits(ids: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
      const [b, t] = ids.shape;
      return tf.reshape(lmHead(this.hidden(ids), this.weights), [b, t, this.config.vocabSize]);
    });
  }

  logprobsOf(ids: tf.Tensor2D, targets: tf.Tensor2D): tf.Tensor2D {
    return this.evaluate(ids, targets).logprobs;
  }

  /**
   * logprobs[b,t] = log softmax(logits[b,t])[targets[b,t]] and entropy[b,t] = −Σ_v p_v log p_v, by a
   * chunked log-softmax + gather ({@link targetScores}: no `[B·T, V]` one-hot or whole logits);
   * values[b,t] = h[b,t]·w_v + b_v.
   */
  evaluate(ids: tf.Tensor2D, targets: tf.Tensor2D, opts: EvaluateOptions = {}): Evaluation {
    if (opts.values && !this.weights.valueHead) throw new Error("this model has no value head");
    const [b, t] = ids.shape;
    const out = tf.tidy(() => {
      const hidden = this.hidden(ids);
      const { lmHead: untied, embed } = this.weights;
      const head = untied
        ? { weight: untied as tf.Tensor2D, tied: false }
        : { weight: embed as tf.Tensor2D, tied: true };
      const scores = targetScores(hidden, head, Int32Array.from(targets.dataSync()), {
        entropy: opts.entropy === true,
      });
      const result: Record<string, tf.Tensor2D> = { logprobs: tf.reshape(scores.logprobs, [b, t]) };
      if (scores.entropy) result.entropy = tf.reshape(scores.entropy, [b, t]);
      if (opts.values && this.weights.valueHead)
        result.values = this.valueHeadOf(opts.detachValues ? stopGradient(hidden) : hidden, b, t);
      return result;
    });
    return out as unknown as Evaluation;
  }

  values(ids: tf.Tensor2D): tf.Tensor2D {
    if (!this.weights.valueHead) throw new Error("this model has no value head");
    const [b, t] = ids.shape;
    return tf.tidy(() => this.valueHeadOf(this.hidden(ids), b, t));
  }

  sample(prompts: readonly (readonly number[])[], opts: SampleOptions): Promise<SampleResult> {
    return generate(this.weights, this.config, this.rope, prompts, opts);
  }

  dispose(): void {
    disposeWeights(this.weights);
    disposeRope(this.rope);
  }

  private hidden(ids: tf.Tensor2D): tf.Tensor2D {
    return forwardHidden(this.weights, ids, this.config, this.rope);
  }

  private valueHeadOf(hidden: tf.Tensor2D, b: number, t: number): tf.Tensor2D {
    const head = this.weights.valueHead as NonNullable<Weights["valueHead"]>;
    return tf.reshape(tf.add(matmul(hidden, head.weight), head.bias), [b, t]);
  }
}
