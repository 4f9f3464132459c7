import { EdgegymError } from "../../shared/errors.js";
import type { PublicJwk } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import type { Result } from "../../shared/result.js";
import { MAX_TRAJECTORY_BYTES } from "../../shared/transcript.js";

/** What a run expects of every receipt sent to it. */
export type RunExpectation = {
  envName: string;
  envVersion: string;
  contentHash: string;
  split: string;
  publicKey: PublicJwk;
  /** episodeId → task index, for the sessions the hub started for this run. */
  issued: ReadonlyMap<string, number>;
};

export type VerifiedEpisode = {
  episodeId: string;
  taskIndex: number;
  return: number;
  finalReward: number;
  steps: number;
  receipt: string;
  trajectory: unknown;
};

const reject = (detail: string): Result<never, EdgegymError> => ({
  ok: false,
  error: new EdgegymError("invalid_receipt", detail),
});

/**
 * Checks one uploaded episode: the signature under the version's key (forgeries), the claims against
 * the run's env, version, contentHash and split (foreign receipts), and the episodeId against the
 * sessions the hub issued to this run (cross-run and self-started episodes).
 */
export async function verifyEpisode(
  item: { episodeId: string; receipt: string; trajectory?: unknown },
  run: RunExpectation,
): Promise<Result<VerifiedEpisode, EdgegymError>> {
  const verified = await verifyReceipt(item.receipt, run.publicKey);
  if (!verified.ok) return reject(`receipt rejected: ${verified.error}`);
  const claims = verified.value;
  if (claims.env !== run.envName || claims.version !== run.envVersion) {
    return reject(`receipt is for ${claims.env}@${claims.version}, not ${run.envName}@${run.envVersion}`);
  }
  if (claims.contentHash !== run.contentHash) return reject("receipt contentHash differs from the run's");
  if (claims.task.split !== run.split)
    return reject(`receipt is for split ${claims.task.split}, not ${run.split}`);
  if (claims.episodeId !== item.episodeId) return reject("receipt is for a different episodeId");
  const taskIndex = run.issued.get(claims.episodeId);
  if (taskIndex === undefined) return reject("episodeId was not issued to this run");
  if (taskIndex !== claims.task.index) return reject("receipt task differs from the issued task");
  let trajectory: unknown = null;
  if (item.trajectory !== undefined) {
    const size = new TextEncoder().encode(JSON.stringify(item.trajectory)).length;
    if (size > MAX_TRAJECTORY_BYTES) {
      return {
        ok: false,
        error: new EdgegymError(
          "invalid_request",
          `trajectory is ${size} bytes; the limit is ${MAX_TRAJECTORY_BYTES}`,
        ),
      };
    }
    trajectory = item.trajectory;
  }
  return {
    ok: true,
    value: {
      episodeId: claims.episodeId,
      taskIndex,
      return: claims.return,
      finalReward: claims.finalReward,
      steps: claims.steps,
      receipt: item.receipt,
      trajectory,
    },
  };
}
