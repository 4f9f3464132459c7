import { z } from "zod";
import { SLUG_REGEX } from "./env-ref.js";
import { Problem } from "./errors.js";
import { deeperThan, MAX_JSON_DEPTH } from "./json-depth.js";

export const PROTOCOL = "edgegym/v1";

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const Semver = z.string().regex(SEMVER, "must be a semantic version such as 1.2.3");

export const ContentHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 hex>");

/** A tool as the manifest lists it: the OpenAI function-tool shape, parameters as JSON Schema. */
export const ToolSpec = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

export const Limits = z.object({
  maxSteps: z.number().int().positive(),
  maxActionChars: z.number().int().positive(),
  stepTimeoutMs: z.number().int().positive(),
  sessionTtlSeconds: z.number().int().positive(),
});
export type Limits = z.infer<typeof Limits>;

/** Ed25519 public key as JWK: what verifies an environment's receipts. */
export const PublicJwk = z
  .object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string(), kid: z.string().optional() })
  .loose();
export type PublicJwk = z.infer<typeof PublicJwk>;

export const Manifest = z.object({
  protocol: z.literal(PROTOCOL),
  name: z.string().regex(SLUG_REGEX),
  version: Semver,
  description: z.string(),
  tools: z.array(ToolSpec),
  splits: z.record(z.string(), z.number().int().nonnegative()),
  limits: Limits,
  reward: z.object({ min: z.number(), max: z.number() }),
  toolCallFormat: z.literal("hermes"),
  publicKey: PublicJwk,
  contentHash: ContentHash,
});
export type Manifest = z.infer<typeof Manifest>;

/** An OpenAI tool call. `arguments` is a JSON string on the wire; an object is tolerated on input. */
export const ToolCall = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const ToolCallInput = z.object({
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string(),
    // An object is refused past MAX_JSON_DEPTH levels before anything walks it recursively.
    arguments: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .refine((a) => typeof a === "string" || !deeperThan(a), {
        message: `arguments may nest at most ${MAX_JSON_DEPTH} levels`,
      }),
  }),
});
export type ToolCallInput = z.infer<typeof ToolCallInput>;

export const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCall).optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string(),
    name: z.string().optional(),
    content: z.string(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The model's action: raw text with Hermes `<tool_call>` blocks, or OpenAI tool_calls. */
export const Action = z
  .object({
    content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCallInput).optional(),
  })
  .refine((a) => typeof a.content === "string" || a.tool_calls !== undefined, {
    message: "an action needs content or tool_calls",
  });
export type Action = z.infer<typeof Action>;

export const TaskRef = z.object({ split: z.string(), index: z.number().int().nonnegative() });
export type TaskRef = z.infer<typeof TaskRef>;

export const SessionRequest = z.object({
  split: z.string().min(1).default("train"),
  index: z.number().int().nonnegative().optional(),
  seed: z.number().int().optional(),
});
export type SessionRequest = z.infer<typeof SessionRequest>;

export const Observation = z.object({
  messages: z.array(ChatMessage),
  mode: z.enum(["append", "replace"]).default("append"),
});
export type Observation = z.infer<typeof Observation>;

export const SessionResponse = z.object({
  session: z.string(),
  episodeId: z.string(),
  task: TaskRef,
  observation: z.object({ messages: z.array(ChatMessage) }),
  done: z.literal(false),
});
export type SessionResponse = z.infer<typeof SessionResponse>;

export const StepRequest = z.object({ session: z.string().min(1), action: Action });
export type StepRequest = z.infer<typeof StepRequest>;

/** `success`: set by the env on the step that ends an episode (whether the task was solved), absent before. */
export const StepInfo = z
  .object({ reward_components: z.record(z.string(), z.number()), success: z.boolean().optional() })
  .catchall(z.unknown());
export type StepInfo = z.infer<typeof StepInfo>;

export const StepResult = z.object({
  session: z.string(),
  observation: Observation,
  reward: z.number(),
  done: z.boolean(),
  truncated: z.boolean(),
  info: StepInfo,
  receipt: z.string().optional(),
});
export type StepResult = z.infer<typeof StepResult>;

export const MAX_BATCH = 256;
/** Items stay unparsed here so that one malformed item fails alone. */
export const BatchRequest = z.object({ steps: z.array(z.unknown()).min(1).max(MAX_BATCH) });
export const BatchItemResult = z.union([StepResult, z.object({ error: Problem })]);
export type BatchItemResult = z.infer<typeof BatchItemResult>;
export const BatchResponse = z.object({ results: z.array(BatchItemResult) });
export type BatchResponse = z.infer<typeof BatchResponse>;

export const ExpertRequest = z.object({ session: z.string().min(1) });
export const ExpertResponse = z.object({ action: Action });
export type ExpertResponse = z.infer<typeof ExpertResponse>;

/** What a receipt signs: enough for the hub to check an episode without trusting the client. */
export const ReceiptClaims = z.object({
  env: z.string(),
  version: z.string(),
  contentHash: ContentHash,
  episodeId: z.string(),
  task: TaskRef,
  steps: z.number().int().nonnegative(),
  return: z.number(),
  finalReward: z.number(),
  /** The env's verdict on the episode (its final step's `info.success`); receipts before it lack it. */
  success: z.boolean().optional(),
  iat: z.number().int(),
});
export type ReceiptClaims = z.infer<typeof ReceiptClaims>;
