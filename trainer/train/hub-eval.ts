import { request } from "undici";
import type { z } from "zod";
import { Problem } from "../../shared/errors.js";
import {
  type CreateEval,
  EpisodeResults,
  type EvalAggregate,
  EvalRun,
  MAX_EPISODE_BATCH,
} from "../../shared/evals.js";
import { type ChatMessage, SessionResponse } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { fitTranscript } from "../../shared/transcript.js";
import type { InfraFailure } from "../client/env-client.js";
import type { StartSession, Trajectory } from "../rollout/types.js";

/**
 * A hub evaluation run (`edgegym eval --upload`): the hub fixes the task set, issues each task's
 * session, verifies the uploaded receipts and aggregates; the client never reports its own score.
 */
export class HubEvalRun {
  private constructor(
    private readonly hub: string,
    private readonly token: string | undefined,
    readonly id: string,
  ) {}

  /** POST /v1/evals: the run over the body's env (`owner/name@version`), split and tasks. */
  static async create(hub: string, token: string | undefined, body: CreateEval): Promise<Result<HubEvalRun>> {
    const created = await call(hub, token, "/v1/evals", EvalRun, body);
    return created.ok ? ok(new HubEvalRun(hub, token, created.value.id)) : err(created.error);
  }

  /** Each episode's opening messages (system, user), kept for the transcript uploaded with its receipt. */
  private readonly openings = new Map<string, ChatMessage[]>();

  /** Sessions come from the hub so that the receipts can be tied to this run. */
  readonly start: StartSession = async (task) => {
    const r = await call(this.hub, this.token, `/v1/evals/${this.id}/sessions`, SessionResponse, {
      index: task.index,
    });
    if (r.ok) {
      this.openings.set(r.value.episodeId, r.value.observation.messages);
      return r;
    }
    const failure: InfraFailure = { kind: "rejected", detail: r.error, attempts: 1 };
    return err(failure);
  };

  /**
   * Uploads the receipt of every finished episode; returns how many the hub accepted and, for the
   * rejected ones, the hub's reasons (`3 × invalid_receipt: …`, one line per distinct reason).
   */
  async upload(
    trajectories: readonly Trajectory[],
  ): Promise<Result<{ accepted: number; rejected: number; rejections: string[] }>> {
    const episodes = trajectories.flatMap((t) => {
      const receipt = t.steps.at(-1)?.receipt;
      if (!receipt || !t.episodeId) return [];
      // The transcript lets anyone who may see the run read the episode on the hub (cut to its size limit).
      const trajectory = fitTranscript({
        messages: this.openings.get(t.episodeId) ?? [],
        steps: t.steps.map((s) => ({
          action: { content: s.action },
          reward: s.reward,
          observation: s.observation,
          done: s.done,
        })),
      });
      return [{ episodeId: t.episodeId, receipt, ...(trajectory ? { trajectory } : {}) }];
    });
    let accepted = 0;
    let rejected = 0;
    const reasons = new Map<string, number>();
    for (let from = 0; from < episodes.length; from += MAX_EPISODE_BATCH) {
      const r = await call(this.hub, this.token, `/v1/evals/${this.id}/episodes`, EpisodeResults, {
        episodes: episodes.slice(from, from + MAX_EPISODE_BATCH),
      });
      if (!r.ok) return r;
      for (const item of r.value.results) {
        if (item.ok) accepted++;
        else {
          rejected++;
          const why = `${item.error.code}: ${item.error.detail ?? item.error.title}`;
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
        }
      }
    }
    const rejections = [...reasons].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${n} × ${why}`);
    return ok({ accepted, rejected, rejections });
  }

  /** Closes the run; the hub's aggregate counts tasks without a verified episode as failures. */
  async finish(): Promise<Result<EvalAggregate | null>> {
    const r = await call(this.hub, this.token, `/v1/evals/${this.id}/finish`, EvalRun, {});
    return r.ok ? ok(r.value.aggregate) : r;
  }
}

async function call<T>(
  hub: string,
  token: string | undefined,
  path: string,
  schema: z.ZodType<T>,
  body: unknown,
): Promise<Result<T>> {
  try {
    const res = await request(`${hub}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.statusCode >= 300) {
      const problem = Problem.safeParse(json);
      const why = problem.success
        ? `${problem.data.code}: ${problem.data.detail ?? problem.data.title}`
        : `HTTP ${res.statusCode}`;
      return err(`${path}: ${why}`);
    }
    const parsed = schema.safeParse(json);
    return parsed.success ? ok(parsed.data) : err(`${path}: unexpected response`);
  } catch (e) {
    return err(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
