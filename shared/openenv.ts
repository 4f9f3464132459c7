import { z } from "zod";
import { ChatMessage, TaskRef, ToolCallInput } from "./protocol.js";

/**
 * OpenEnv's wire types (huggingface/OpenEnv, `openenv.core.env_server.types` and `mcp_types`), as
 * every edgegym env speaks them beside edgegym/v1: the `/ws` messages, the stateless `/reset` and
 * `/step` bodies, and the error codes. Written from OpenEnv's published types, not its code.
 */

/** `WSErrorCode`: what an OpenEnv client sees in an `error` reply's `data.code`. */
export const OPENENV_ERROR_CODES = [
  "INVALID_JSON",
  "UNKNOWN_TYPE",
  "VALIDATION_ERROR",
  "EXECUTION_ERROR",
  "CAPACITY_REACHED",
  "FACTORY_ERROR",
  "SESSION_ERROR",
] as const;
export const OpenEnvErrorCode = z.enum(OPENENV_ERROR_CODES);
export type OpenEnvErrorCode = z.infer<typeof OpenEnvErrorCode>;

/**
 * What `reset` takes (a WS message's `data`, or the `/reset` body): OpenEnv's `seed` and
 * `episode_id`, plus edgegym's task choice. OpenEnv's seed is non-negative; edgegym's any integer.
 */
export const OpenEnvResetData = z
  .object({
    seed: z.number().int().optional(),
    episode_id: z.string().max(255).optional(),
    split: z.string().min(1).default("train"),
    index: z.number().int().nonnegative().optional(),
  })
  .loose();
export type OpenEnvResetData = z.infer<typeof OpenEnvResetData>;

/**
 * The step action: an edgegym action (the model's raw reply in `content`, or OpenAI `tool_calls`)
 * with OpenEnv's `metadata`, where a stateless `/step` may carry the sealed token.
 */
export const OpenEnvAction = z
  .object({
    content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCallInput).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((a) => typeof a.content === "string" || a.tool_calls !== undefined, {
    message: "an action needs content or tool_calls",
  });
export type OpenEnvAction = z.infer<typeof OpenEnvAction>;

/** OpenEnv's MCP actions, recognised by `type` whatever the env's action schema (`ListToolsAction`, `CallToolAction`). */
export const ListToolsAction = z.object({
  type: z.literal("list_tools"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const CallToolAction = z.object({
  type: z.literal("call_tool"),
  tool_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type CallToolAction = z.infer<typeof CallToolAction>;

/** One incoming `/ws` message (`WSResetMessage`, `WSStepMessage`, `WSStateMessage`, `WSCloseMessage`, `WSMCPMessage`). */
export const WSIncoming = z.discriminatedUnion("type", [
  z.object({ type: z.literal("reset"), data: z.record(z.string(), z.unknown()).default({}) }).strict(),
  z.object({ type: z.literal("step"), data: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ type: z.literal("state") }).strict(),
  z.object({ type: z.literal("close") }).strict(),
  z.object({ type: z.literal("mcp"), data: z.record(z.string(), z.unknown()) }).strict(),
]);
export type WSIncoming = z.infer<typeof WSIncoming>;

/**
 * edgegym's own fields of an observation, under OpenEnv's `metadata`. The episode's fields are absent
 * only from a `list_tools` answer before any `reset`.
 */
export const OpenEnvObservationMetadata = z
  .object({
    /** The episode's current sealed token: what a stateless `/step` sends back. */
    session: z.string().optional(),
    episode_id: z.string().optional(),
    task: TaskRef.optional(),
    step: z.number().int().nonnegative().optional(),
    truncated: z.boolean(),
    info: z.record(z.string(), z.unknown()).optional(),
    receipt: z.string().optional(),
  })
  .loose();

/** The observation dict (`serialize_observation`'s `observation`): the messages the policy reads next. */
export const OpenEnvObservation = z
  .object({
    messages: z.array(ChatMessage),
    mode: z.enum(["append", "replace"]),
    metadata: OpenEnvObservationMetadata,
  })
  .loose();

/** `ResetResponse` / `StepResponse`, and a WS `observation` reply's `data`. */
export const OpenEnvResult = z.object({
  observation: OpenEnvObservation,
  reward: z.number().nullable(),
  done: z.boolean(),
});
export type OpenEnvResult = z.infer<typeof OpenEnvResult>;

/** OpenEnv's `State` (episode_id, step_count; extra fields allowed) with edgegym's episode facts. */
export const OpenEnvState = z
  .object({
    episode_id: z.string().nullable(),
    step_count: z.number().int().nonnegative(),
    env: z.string(),
    version: z.string(),
    task: TaskRef.nullable(),
    done: z.boolean(),
    return: z.number(),
  })
  .loose();
export type OpenEnvState = z.infer<typeof OpenEnvState>;

/** The `/step` body: OpenEnv's `StepRequest` (extra fields allowed), the token at the top or in the action's metadata. */
export const OpenEnvStepRequest = z
  .object({
    action: z.record(z.string(), z.unknown()),
    session: z.string().min(1).optional(),
    timeout_s: z.number().positive().optional(),
    request_id: z.string().max(255).optional(),
  })
  .loose();
