import * as tf from "@tensorflow/tfjs-core";

const identityWithoutGradient = tf.customGrad((...inputs) => {
  const x = inputs[0] as tf.Tensor;
  return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
});

/**
 * sg(x): the identity in the forward pass with a zero gradient, which tfjs-core does not ship.
 * GSPO's per-token ratio needs it.
 */
export function stopGradient<T extends tf.Tensor>(x: T): T {
  return identityWithoutGradient(x) as T;
}
