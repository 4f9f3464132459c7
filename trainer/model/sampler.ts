import type { Rng } from "../../shared/random.js";

export interface Draw {
  token: number;
  /** log softmax(logits / temperature)[token] (temperature 1 when greedy). */
  logprob: number;
}

/**
 * Draws one token from `logits` (a row of a larger array at `offset`): greedy when temperature is 0,
 * else from softmax(logits / temperature) restricted to the smallest set of most likely tokens whose
 * mass reaches `topP` (nucleus sampling), renormalised.
 */
export function drawToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  temperature: number,
  topP: number,
  random: Rng,
): Draw {
  const t = temperature > 0 ? temperature : 1;
  let max = Number.NEGATIVE_INFINITY;
  let argmax = 0;
  for (let i = 0; i < vocab; i++) {
    const x = (logits[offset + i] as number) / t;
    if (x > max) {
      max = x;
      argmax = i;
    }
  }
  const probs = new Float64Array(vocab);
  let sum = 0;
  for (let i = 0; i < vocab; i++) {
    const p = Math.exp((logits[offset + i] as number) / t - max);
    probs[i] = p;
    sum += p;
  }
  const logZ = max + Math.log(sum);
  const logprobOf = (token: number) => (logits[offset + token] as number) / t - logZ;
  if (temperature <= 0) return { token: argmax, logprob: logprobOf(argmax) };
  const token = topP >= 1 ? drawFrom(probs, sum, random) : drawNucleus(probs, sum, topP, random);
  return { token, logprob: logprobOf(token) };
}

function drawFrom(probs: Float64Array, sum: number, random: Rng): number {
  let u = random.next() * sum;
  for (let i = 0; i < probs.length; i++) {
    u -= probs[i] as number;
    if (u < 0) return i;
  }
  return probs.length - 1;
}

function drawNucleus(probs: Float64Array, sum: number, topP: number, random: Rng): number {
  const order = Array.from(probs.keys()).sort((a, b) => (probs[b] as number) - (probs[a] as number));
  let kept = 0;
  let mass = 0;
  while (kept < order.length && mass < topP * sum) mass += probs[order[kept++] as number] as number;
  let u = random.next() * mass;
  for (let i = 0; i < kept; i++) {
    const token = order[i] as number;
    u -= probs[token] as number;
    if (u < 0) return token;
  }
  return order[kept - 1] as number;
}
