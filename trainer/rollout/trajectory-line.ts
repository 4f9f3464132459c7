import { z } from "zod";
import { ChatMessage, TaskRef } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";

/**
 * One line of a trajectories.jsonl, the one schema of both files that hold episodes: a training run's
 * (`edgegym train`, `edgegym demos`: each step's text beside its exact ids, for reading what the
 * policy was trained on) and an evaluation's (`edgegym eval --out`: each step's action and the
 * observation that followed). Every line has the episode's fields; a step carries the parts its
 * writer keeps. Older files parse: no field was ever renamed.
 */
const StepLine = z
  .object({
    step: z.number().int().nonnegative(),
    /** The decoded prompt and response (training), with control tokens kept. */
    prompt: z.string().optional(),
    response: z.string().optional(),
    /** The action text sent to the env and its tool calls (evaluation). */
    action: z.string().optional(),
    toolCalls: z.number().int().nonnegative().optional(),
    reward: z.number(),
    done: z.boolean(),
    truncated: z.boolean().optional(),
    /** The observation that followed (evaluation; empty on the last step). */
    observation: z.array(ChatMessage).optional(),
    promptIds: z.array(z.number().int()).optional(),
    responseIds: z.array(z.number().int()).optional(),
    /** log π_old of each response id, to 4 decimals. */
    responseLogprobs: z.array(z.number()).optional(),
  })
  .strict();

export const TrajectoryLine = z
  .object({
    /** The RL iteration that sampled it (training only). */
    iteration: z.number().int().nonnegative().optional(),
    episode: z.number().int().nonnegative(),
    group: z.number().int().nonnegative().optional(),
    task: TaskRef,
    /** The env's episode id (evaluation), when the episode started. */
    episodeId: z.string().optional(),
    return: z.number(),
    success: z.boolean(),
    truncated: z.boolean(),
    /** Why the env could not run it: an infrastructure failure, not a wrong answer. */
    failure: z
      .object({
        kind: z.string(),
        code: z.string().optional(),
        status: z.number().optional(),
        detail: z.string(),
        attempts: z.number(),
      })
      .strict()
      .optional(),
    steps: z.array(StepLine),
  })
  .strict();
export type TrajectoryLine = z.infer<typeof TrajectoryLine>;

/** A trajectories.jsonl's text as lines, each checked against the schema (`line k: path: why` when one is not). */
export function parseTrajectoryLines(text: string): Result<TrajectoryLine[]> {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const out: TrajectoryLine[] = [];
  for (const [i, line] of lines.entries()) {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return err(`line ${i + 1}: not JSON`);
    }
    const parsed = TrajectoryLine.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return err(`line ${i + 1}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
    }
    out.push(parsed.data);
  }
  return ok(out);
}
