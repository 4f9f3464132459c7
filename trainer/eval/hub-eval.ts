import type { ClientResponse } from "hono/client";
import type { z } from "zod";
import type { HubTarget } from "../../hub/client.js";
import { type HubClient, HubError, hubClient, hubJson } from "../../hub/client.js";
import {
  type CreateEval,
  EpisodeResults,
  type EvalAggregate,
  EvalRun,
  MAX_EPISODE_BATCH,
} from "../../shared/evals.js";
import { MAX_BODY_BYTES } from "../../shared/http.js";
import { type ChatMessage, SessionResponse } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { fitTranscript } from "../../shared/transcript.js";
import { type InfraFailure, RETRYABLE, refusalKind } from "../client/env-client.js";
import { type AttemptOutcome, DEFAULT_RETRY_POLICY, retrying } from "../client/retry.js";
import type { StartSession, Trajectory } from "../rollout/types.js";

/**
 * A hub evaluation run (`edgegym eval --upload`): the hub fixes the task set, issues each task's
 * session, verifies the uploaded receipts and aggregates; the client never reports its own score.
 */
export class HubEvalRun {
  private constructor(
    private readonly api: HubClient,
    readonly id: string,
  ) {}

  /** POST /v1/evals: the run over the body's env (`owner/name@version`), split and tasks. */
  static async create(hub: HubTarget, body: CreateEval): Promise<Result<HubEvalRun>> {
    const api = hubClient(hub, HUB_EVAL_CALL_TIMEOUT_MS);
    const created = await attempt("/v1/evals", EvalRun, () => api.v1.evals.$post({ json: body }));
    return created.ok ? ok(new HubEvalRun(api, created.value.id)) : err(created.error);
  }

  private get run() {
    return this.api.v1.evals[":id"];
  }

  /** Each episode's opening messages (system, user), kept for the transcript uploaded with its receipt. */
  private readonly openings = new Map<string, ChatMessage[]>();

  /**
   * Sessions come from the hub so that the receipts can be tied to this run. Starting a task's
   * session is idempotent on the hub (it hands back the one issued earlier), so every retryable
   * failure is tried again, and a rate-limited run waits its turn rather than losing the task.
   */
  readonly start: StartSession = async (task) => {
    const path = `/v1/evals/${this.id}/sessions`;
    const r = await retrying(
      () =>
        tryCall(
          path,
          SessionResponse,
          this.run.sessions.$post({ param: { id: this.id }, json: { index: task.index } }),
        ),
      { policy: DEFAULT_RETRY_POLICY, retryable: (f) => RETRYABLE.has(f.kind) },
    );
    if (!r.ok) return r;
    this.openings.set(r.value.episodeId, r.value.observation.messages);
    return r;
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
    for (const batch of uploadBatches(episodes)) {
      const r = await attempt(`/v1/evals/${this.id}/episodes`, EpisodeResults, () =>
        this.run.episodes.$post({ param: { id: this.id }, json: { episodes: batch } }),
      );
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
    const r = await attempt(`/v1/evals/${this.id}/finish`, EvalRun, () =>
      this.run.finish.$post({ param: { id: this.id } }),
    );
    return r.ok ? ok(r.value.aggregate) : r;
  }
}

/**
 * `items` in order, cut into POST bodies the hub takes: at most `maxCount` items each, and
 * `{"episodes":[…]}` at most `maxBytes` of UTF-8 JSON. Long webshop transcripts put 256 episodes over
 * the hub's 1 MiB body limit. One item is never larger than a body (a transcript is cut to 64 KiB).
 */
export function uploadBatches<T>(
  items: readonly T[],
  maxCount = MAX_EPISODE_BATCH,
  maxBytes = MAX_BODY_BYTES,
): T[][] {
  const wrapper = Buffer.byteLength('{"episodes":[]}');
  const batches: T[][] = [];
  let batch: T[] = [];
  let size = wrapper;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item));
    // A comma before every item but the first.
    const grown = size + bytes + (batch.length > 0 ? 1 : 0);
    if (batch.length > 0 && (batch.length >= maxCount || grown > maxBytes)) {
      batches.push(batch);
      batch = [];
      size = wrapper;
    }
    size += bytes + (batch.length > 0 ? 1 : 0);
    batch.push(item);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** What a finished hub evaluation gives back: the run, its episodes, the upload's counts and the hub's aggregate. */
export type HubEvaluation = {
  runId: string;
  trajectories: Trajectory[];
  uploaded: { accepted: number; rejected: number; rejections: string[] };
  /** The hub's verdict on the verified receipts (null when the hub closed the run without one). */
  aggregate: EvalAggregate | null;
};

/**
 * The one hub-evaluation flow, for `edgegym eval --upload` and the pipeline's eval stages: create the
 * run (`body` fixes env, split and tasks), let `play` roll out the episodes on the run's sessions,
 * upload their receipts, finish. How episodes are played (local model, remote policy, which client)
 * is the caller's; tasks without a verified receipt count as failures in the hub's aggregate.
 */
export async function evaluateOnHub(
  hub: HubTarget,
  body: CreateEval,
  play: (run: { id: string; start: StartSession }) => Promise<Result<Trajectory[]>>,
): Promise<Result<HubEvaluation>> {
  const created = await HubEvalRun.create(hub, body);
  if (!created.ok) return created;
  const run = created.value;
  const trajectories = await play({ id: run.id, start: run.start });
  if (!trajectories.ok) return trajectories;
  // Episodes cut by maxSteps end without a receipt: the hub counts their tasks as failures.
  const uploaded = await run.upload(trajectories.value);
  if (!uploaded.ok) return uploaded;
  const aggregate = await run.finish();
  if (!aggregate.ok) return aggregate;
  return ok({
    runId: run.id,
    trajectories: trajectories.value,
    uploaded: uploaded.value,
    aggregate: aggregate.value,
  });
}

/** A verifying upload of 256 episodes takes the hub a while; no call may hang a run for ever. */
const HUB_EVAL_CALL_TIMEOUT_MS = 120_000;

/** One hub call as a Result: `path: code: detail` when refused, the reply checked against `schema`. */
async function attempt<T>(
  path: string,
  schema: z.ZodType<T>,
  call: () => Promise<ClientResponse<unknown, number, "json">>,
): Promise<Result<T>> {
  // A 429 left the hub untouched, so even a call that is not idempotent can wait and go again.
  const r = await retrying(() => tryCall(path, schema, call()), {
    policy: DEFAULT_RETRY_POLICY,
    retryable: (f) => f.kind === "rate_limited",
  });
  return r.ok ? r : err(r.error.detail);
}

/** One hub call, its failure classified the way the env client classifies a step's (retryable or not). */
async function tryCall<T>(
  path: string,
  schema: z.ZodType<T>,
  call: Promise<ClientResponse<unknown, number, "json">>,
): Promise<AttemptOutcome<T, Omit<InfraFailure, "attempts">>> {
  let json: unknown;
  try {
    json = await hubJson(call);
  } catch (e) {
    if (e instanceof HubError && e.status !== undefined) {
      const p = e.problem;
      // Which field was wrong, when the hub says: the same `issues` the CLI prints.
      const issues = (p?.issues ?? []).map((i) => `${i.path === "" ? "(body)" : i.path}: ${i.message}`);
      const detail = p
        ? `${path}: ${p.code}: ${p.detail ?? p.title}${issues.length > 0 ? ` (${issues.join("; ")})` : ""}`
        : `${path}: HTTP ${e.status}`;
      return err({
        failure: { kind: refusalKind(e.status), status: e.status, detail, ...(p ? { code: p.code } : {}) },
        ...(p?.retryAfter === undefined ? {} : { retryAfterMs: p.retryAfter * 1000 }),
      });
    }
    const detail = `${path}: ${e instanceof Error ? e.message : String(e)}`;
    const kind = e instanceof HubError && !e.unreachable ? "bad_response" : "network";
    return err({ failure: { kind, detail } });
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? ok(parsed.data)
    : err({ failure: { kind: "bad_response", detail: `${path}: unexpected response` } });
}
