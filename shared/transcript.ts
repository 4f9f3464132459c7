import { z } from "zod";
import { ChatMessage, ToolCallInput } from "./protocol.js";

/**
 * The trajectory a client uploads beside an episode's receipt (`POST /v1/evals/{id}/episodes`), in the
 * shape the web hub renders as a transcript: the session's opening messages (system, user), then each
 * step's action, reward and the observation that followed. The hub stores any JSON under the byte
 * limit; this is the shape it can show as turns (anything else is shown as JSON).
 */
export const TranscriptStep = z.object({
  action: z.object({
    content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCallInput).optional(),
  }),
  reward: z.number(),
  observation: z.array(ChatMessage).default([]),
  done: z.boolean().optional(),
});
export type TranscriptStep = z.infer<typeof TranscriptStep>;

export const Transcript = z.object({
  messages: z.array(ChatMessage),
  steps: z.array(TranscriptStep),
});
export type Transcript = z.infer<typeof Transcript>;

/** The hub keeps trajectories up to this size, so a client can't fill its database. */
export const MAX_TRAJECTORY_BYTES = 64 * 1024;

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} characters cut]`;
}

function cutMessage(m: ChatMessage, max: number): ChatMessage {
  return m.content === null ? m : { ...m, content: cut(m.content, max) };
}

/**
 * The transcript cut to fit `limit` bytes: every text is shortened to fewer characters until it fits
 * (long webshop pages would otherwise cost the episode its upload); null when even that fails.
 */
export function fitTranscript(t: Transcript, limit = MAX_TRAJECTORY_BYTES): Transcript | null {
  if (bytes(t) <= limit) return t;
  for (const max of [4000, 1000, 300, 80]) {
    const shorter: Transcript = {
      messages: t.messages.map((m) => cutMessage(m, max)),
      steps: t.steps.map((s) => ({
        ...s,
        action: {
          ...s.action,
          content: s.action.content == null ? s.action.content : cut(s.action.content, max),
        },
        observation: s.observation.map((m) => cutMessage(m, max)),
      })),
    };
    if (bytes(shorter) <= limit) return shorter;
  }
  return null;
}
