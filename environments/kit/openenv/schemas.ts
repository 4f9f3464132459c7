import { z } from "zod";
import { OpenEnvObservation, OpenEnvState } from "../../../shared/openenv.js";

/**
 * `/schema`'s action: one required string, `content`, so that a client that fills the schema's single
 * string field with the model's reply (verifiers' `OpenEnvEnv`) sends exactly the edgegym action.
 * No `list_tools`/`call_tool` values appear here: those are OpenEnv's MCP actions, which every
 * server takes by their `type`, and naming them would make such a client take the env for an
 * MCP-only one.
 */
const ACTION_SCHEMA = {
  title: "EdgegymAction",
  type: "object",
  description:
    "The model's reply: raw text, tool calls as <tool_call>{...}</tool_call> blocks (Hermes); text with no tool call is the final answer. OpenAI tool_calls may be sent instead.",
  properties: {
    content: { type: "string", description: "the model's raw reply" },
    tool_calls: {
      type: "array",
      description: "OpenAI-style tool calls, instead of or beside Hermes blocks in content",
      items: {
        type: "object",
        properties: {
          id: { type: "string" },
          type: { const: "function" },
          function: {
            type: "object",
            properties: { name: { type: "string" }, arguments: { type: ["string", "object"] } },
            required: ["name", "arguments"],
          },
        },
        required: ["function"],
      },
    },
    metadata: {
      type: "object",
      description:
        "OpenEnv's action metadata; a stateless POST /step may carry the episode's token as `session`",
    },
  },
  required: ["content"],
  additionalProperties: false,
} as const;

let built: { action: unknown; observation: unknown; state: unknown } | undefined;

/** The three schemas of OpenEnv's `SchemaResponse`, built once (JSON Schema generation is costly). */
export function openEnvSchemas(): { action: unknown; observation: unknown; state: unknown } {
  built ??= {
    action: ACTION_SCHEMA,
    observation: { title: "EdgegymObservation", ...strip(z.toJSONSchema(OpenEnvObservation)) },
    state: { title: "EdgegymState", ...strip(z.toJSONSchema(OpenEnvState)) },
  };
  return built;
}

function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = schema;
  return rest;
}
