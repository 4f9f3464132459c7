import { z } from "zod";
import { BACKENDS } from "../backend/names.js";
import { TOOL_FORMATS } from "./tool-format.js";

/**
 * `openai:<baseURL>` must carry an http(s) URL: `openai:localhost:9504` would otherwise fail on every
 * call with an error that does not name the cause.
 */
export function checkPolicy(policy: string): string | undefined {
  if (!policy.startsWith("openai:")) return undefined;
  const url = policy.slice("openai:".length);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host !== "")
    return undefined;
  return `--policy openai:<baseURL> needs an http(s) URL, got "${url}" (for example openai:http://${url.replace(/^[a-z]+:\/\//, "") || "localhost:8000/v1"})`;
}

/**
 * The name of a hub evaluation's leaderboard entry: `--model` when given, for checkpoint policies too
 * (a checkpoint's folder path says little on a leaderboard), else the checkpoint folder, or "default"
 * for an `openai:` policy.
 */
export function leaderboardName(config: { policy: string; model?: string | undefined }): string {
  return config.model ?? (config.policy.startsWith("openai:") ? "default" : config.policy);
}

/** `edgegym eval`: a policy on a split's first n tasks, one episode each. */
export const EvalConfig = z.strictObject({
  /** `--env`: an env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string(),
  /** A checkpoint folder, or `openai:<baseURL>` for a remote OpenAI-compatible model. */
  policy: z.string().superRefine((value, ctx) => {
    const problem = checkPolicy(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }),
  /**
   * The model: sent to the remote server for `openai:` policies (default "default"), and the name of
   * the hub evaluation's leaderboard entry for every policy (default: the policy itself).
   */
  model: z.string().optional(),
  /** Run folder for results.json and trajectories.jsonl; unset: runs/eval-<time>. */
  out: z.string().optional(),
  /** How an `openai:` policy calls tools: OpenAI `tools`, or Hermes `<tool_call>` text. */
  toolFormat: z.enum(TOOL_FORMATS).default("openai"),
  /** Deadline of one call to an `openai:` policy's server. */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Retries of a failed call to an `openai:` policy's server (connection errors, 429, 5xx). */
  retries: z.number().int().nonnegative().default(2),
  split: z.string().default("test"),
  /** Tasks 0..n−1 of the split. */
  n: z.number().int().positive().default(100),
  maxSteps: z.number().int().positive().default(6),
  maxNewTokens: z.number().int().positive().default(64),
  /** 0 is greedy decoding. */
  temperature: z.number().nonnegative().default(0),
  seed: z.number().int().default(1),
  backend: z.enum(BACKENDS).optional(),
  /** Episodes in flight at once. */
  concurrency: z.number().int().positive().default(32),
  /** Run as a hub evaluation: the hub issues the sessions and verifies the uploaded receipts (hub:// envs). */
  upload: z.boolean().default(false),
});
export type EvalConfig = z.infer<typeof EvalConfig>;

export type EvalSummary = {
  env: string;
  policy: string;
  split: string;
  /** Tasks evaluated; every one counts in `success` and `reward`. */
  episodes: number;
  /** Successes over all tasks: an infrastructure failure is a failure, as in the hub's aggregate. */
  success: number;
  /** Mean return over all tasks, a failed episode at the env's minimum reward (as the hub). */
  reward: number;
  /** Means over the episodes that ran. */
  steps: number;
  toolCalls: number;
  infraFailures: number;
  /** One line per kind of infrastructure failure: its count and first error. */
  failures: string[];
  /** The hub's verdict when uploaded: its run id, receipts accepted/rejected and its aggregate. */
  hub?: {
    run: string;
    accepted: number;
    rejected: number;
    /** Why the hub rejected receipts: `count × code: detail`, one per distinct reason. */
    rejections: string[];
    verified: number;
    successRate: number;
  };
};

/** The summary as an aligned two-column text table. */
export function formatEvalTable(s: EvalSummary): string {
  const rows: [string, string][] = [
    ["env", s.env],
    ["policy", s.policy],
    ["split", s.split],
    ["episodes", String(s.episodes)],
    ["success rate", s.success.toFixed(3)],
    ["mean reward", s.reward.toFixed(3)],
    ["mean steps", s.steps.toFixed(2)],
    ["mean tool calls", s.toolCalls.toFixed(2)],
    ["infra failures", String(s.infraFailures)],
    ...s.failures.map((line) => ["", line] as [string, string]),
    ...(s.hub
      ? ([
          ["hub run", s.hub.run],
          ["receipts accepted", `${s.hub.accepted} (rejected ${s.hub.rejected})`],
          ...s.hub.rejections.map((why) => ["", `rejected: ${why}`]),
          ["hub verified", String(s.hub.verified)],
          ["hub success rate", s.hub.successRate.toFixed(3)],
        ] as [string, string][])
      : []),
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n");
}
