import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import { aggregateLoss, maskedMean } from "./aggregate.js";

beforeAll(useCpu);

describe("aggregateLoss", () => {
  // The third row has no trained token: it must not dilute the sequence means.
  const loss = tf.tensor2d([
    [1, 2, 3],
    [4, 0, 0],
    [9, 9, 9],
  ]);
  const mask = tf.tensor2d([
    [1, 1, 0],
    [1, 0, 0],
    [0, 0, 0],
  ]);

  it("token-mean weighs every token the same", () => {
    // (1 + 2 + 4) / 3 tokens
    expectClose(aggregateLoss(loss, mask, "token-mean"), 7 / 3);
  });

  it("seq-mean-token-mean weighs every sequence the same", () => {
    // ((1 + 2)/2 + 4/1) / 2 live rows = (1.5 + 4)/2
    expectClose(aggregateLoss(loss, mask, "seq-mean-token-mean"), 2.75);
  });

  it("seq-mean-token-sum sums tokens then averages sequences", () => {
    // ((1 + 2) + 4) / 2 live rows
    expectClose(aggregateLoss(loss, mask, "seq-mean-token-sum"), 3.5);
  });

  it("maskedMean of an empty mask is 0, not NaN", () => {
    expectClose(maskedMean(loss, tf.zeros([3, 3])), 0);
  });
});
