import "@tensorflow/tfjs-backend-cpu";
import "@tensorflow/tfjs-core/dist/register_all_gradients";
import * as tf from "@tensorflow/tfjs-core";
import { expect } from "vitest";

/** Selects the cpu backend for algorithm tests, which need exact small-tensor arithmetic. */
export async function useCpu(): Promise<void> {
  await tf.setBackend("cpu");
  await tf.ready();
}

/** Asserts a tensor (or number) equals `expected` element-wise to 5 decimals. */
export function expectClose(actual: tf.Tensor | number, expected: number | number[] | number[][]): void {
  const got = typeof actual === "number" ? actual : (actual.arraySync() as number | number[] | number[][]);
  const flatGot = [got].flat(2) as number[];
  const flatWant = [expected].flat(2) as number[];
  expect(flatGot).toHaveLength(flatWant.length);
  flatWant.forEach((w, i) => {
    expect(flatGot[i]).toBeCloseTo(w, 5);
  });
}
