import { html } from "hono/html";
import type { ChatMessage } from "../../shared/protocol.js";
import { Transcript, type TranscriptStep } from "../../shared/transcript.js";
import { type Html, num } from "./layout.js";

/**
 * Hermes `<tool_call>…</tool_call>` blocks in actions and `<tool_response>…</tool_response>` blocks
 * in the env's turns: the parts a reader looks for first.
 */
const BLOCKS = /<(tool_call|tool_response)>[\s\S]*?(?:<\/\1>|$)/g;

/** Text with its tool-call and tool-response blocks set apart; every piece is escaped by `html`. */
function withToolCalls(text: string): Html {
  const parts: Html[] = [];
  let at = 0;
  for (const m of text.matchAll(BLOCKS)) {
    parts.push(html`${text.slice(at, m.index)}`);
    parts.push(html`<mark class="${m[1] === "tool_call" ? "toolcall" : "toolresponse"}">${m[0]}</mark>`);
    at = m.index + m[0].length;
  }
  parts.push(html`${text.slice(at)}`);
  return html`${parts}`;
}

type CallLike = { function: { name: string; arguments: string | Record<string, unknown> } };

function structuredCalls(calls: readonly CallLike[] | undefined): Html {
  return html`${(calls ?? []).map(
    (t) =>
      html`<mark class="toolcall">${t.function.name}(${typeof t.function.arguments === "string" ? t.function.arguments : JSON.stringify(t.function.arguments)})</mark>`,
  )}`;
}

function turn(role: string, body: Html, extra: Html = html``): Html {
  return html`<div class="turn ${role}"><div class="who"><span>${role}</span>${extra}</div><div class="body">${body}</div></div>`;
}

function message(m: ChatMessage): Html {
  if (m.role === "assistant")
    return turn("assistant", html`${withToolCalls(m.content ?? "")}${structuredCalls(m.tool_calls)}`);
  if (m.role === "tool")
    return turn("tool", html`${m.content}`, html`<span>${m.name ?? m.tool_call_id}</span>`);
  return turn(m.role, m.role === "user" ? withToolCalls(m.content) : html`${m.content}`);
}

function step(s: TranscriptStep, i: number): Html {
  const reward = html`<span class="reward">step ${i + 1} · reward ${num(s.reward)}${s.done ? " · done" : ""}</span>`;
  return html`${turn("assistant", html`${withToolCalls(s.action.content ?? "")}${structuredCalls(s.action.tool_calls)}`, reward)}
    ${s.observation.map(message)}`;
}

/**
 * An uploaded trajectory as a transcript: the opening system and user turns, then each action (tool
 * calls highlighted) with its reward and the tool responses that followed. A trajectory of another
 * shape is shown as JSON; none says so.
 */
export function transcriptView(trajectory: unknown): Html {
  if (trajectory === null || trajectory === undefined) {
    return html`<p class="muted small">No trajectory was uploaded with this episode.</p>`;
  }
  const t = Transcript.safeParse(trajectory);
  if (!t.success) return html`<pre class="raw-trajectory">${JSON.stringify(trajectory, null, 2)}</pre>`;
  return html`<div class="transcript">${t.data.messages.map(message)}${t.data.steps.map(step)}</div>`;
}
