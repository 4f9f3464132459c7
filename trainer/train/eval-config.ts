import { z } from "zod";
import { BACKENDS } from "../policy/types.js";

/** `edgegym eval`: a policy on a split's first n tasks, one episode each. */
export const EvalConfig = z.object({
  /** `--env`: an env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string(),
  /** A checkpoint folder, or `openai:<baseURL>` for a remote OpenAI-compatible model. */
  policy: z.string(),
  /** Model name sent to the remote server (`openai:` policies only). */
  model: z.string().default("default"),
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
  episodes: number;
  success: number;
  reward: number;
  steps: number;
  toolCalls: number;
  infraFailures: number;
  /** The hub's verdict when uploaded: its run id, receipts accepted/rejected and its aggregate. */
  hub?: { run: string; accepted: number; rejected: number; verified: number; successRate: number };
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
    ...(s.hub
      ? ([
          ["hub run", s.hub.run],
          ["receipts accepted", `${s.hub.accepted} (rejected ${s.hub.rejected})`],
          ["hub verified", String(s.hub.verified)],
          ["hub success rate", s.hub.successRate.toFixed(3)],
        ] as [string, string][])
      : []),
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n");
}
