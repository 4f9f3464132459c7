import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import { placeStepRewards, primeNormalise } from "./process-rewards.js";

beforeAll(useCpu);

describe("process rewards", () => {
  it("places each step's reward at its last token", async () => {
    const placed = await placeStepRewards(
      tf.tensor2d([[0.1, 1, 7]]),
      tf.tensor2d([[1, 4, -1]], undefined, "int32"), // the third step does not exist
      6,
    );
    expectClose(placed, [[0, 0.1, 0, 0, 1, 0]]);
  });

  it("PRIME normalisation is leave-one-out within the group", async () => {
    // step-mean per rollout r̄ = [0.3, 0, 0.6] (row2's second step is masked), n = 3, Σ r̄ = 0.9
    // R' = R·3/2 − 0.9/2: row0 0.3·1.5 − 0.45 = 0; row1 0 − 0.45; row2 0.6·1.5 − 0.45 = 0.45
    const out = await primeNormalise(
      tf.tensor2d([
        [0.3, 0.3],
        [0, 0],
        [0.6, -1],
      ]),
      tf.tensor2d([
        [1, 1],
        [1, 1],
        [1, 0],
      ]),
      [0, 0, 0],
    );
    expectClose(out, [
      [0, 0],
      [-0.45, -0.45],
      [0.45, 0],
    ]);
  });
});
