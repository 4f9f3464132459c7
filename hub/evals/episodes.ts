import { and, asc, count, eq, gte } from "drizzle-orm";
import { hubEpisodes } from "../../shared/db/schema.js";
import { verifyReceipt } from "../../shared/receipt.js";
import type { HubDb } from "../db.js";
import { publicKeyOf, type VersionRow } from "../registry/resolve.js";
import type { RunRow } from "./runs.js";

export type EpisodeView = {
  episodeId: string;
  taskIndex: number;
  return: number;
  finalReward: number;
  steps: number;
  receipt: string;
  /** The receipt checked again now under the version's public key: "verified" or why not. */
  receiptStatus: { verified: true } | { verified: false; error: string };
  trajectory: unknown;
  createdAt: string;
};

/**
 * A page of a run's stored episodes in task order (`GET /v1/evals/{id}/episodes` and the web run
 * page). Every stored episode was verified on upload; its receipt is verified again here so the
 * status shown is a fact about the receipt, not about the upload.
 */
export async function runEpisodes(
  db: HubDb,
  run: RunRow,
  version: VersionRow,
  page: { fromTask: number; limit: number },
): Promise<{ episodes: EpisodeView[]; total: number; nextTask: number | null }> {
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(hubEpisodes)
      .where(and(eq(hubEpisodes.runId, run.id), gte(hubEpisodes.taskIndex, page.fromTask)))
      .orderBy(asc(hubEpisodes.taskIndex))
      .limit(page.limit + 1),
    db.select({ n: count() }).from(hubEpisodes).where(eq(hubEpisodes.runId, run.id)),
  ]);
  const key = publicKeyOf(version);
  const episodes = await Promise.all(
    rows.slice(0, page.limit).map(async (r): Promise<EpisodeView> => {
      const checked = await verifyReceipt(r.receipt, key);
      return {
        episodeId: r.episodeId,
        taskIndex: r.taskIndex,
        return: r.return,
        finalReward: r.finalReward,
        steps: r.steps,
        receipt: r.receipt,
        receiptStatus: checked.ok ? { verified: true } : { verified: false, error: String(checked.error) },
        trajectory: r.trajectory ?? null,
        createdAt: r.createdAt.toISOString(),
      };
    }),
  );
  const next = rows.length > page.limit ? rows[page.limit] : undefined;
  return { episodes, total: totals[0]?.n ?? 0, nextTask: next ? next.taskIndex : null };
}
