import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import {
  CHATML_TOKENS,
  chatTemplate,
  LLAMA3_TOKENS,
  QWEN3_DIR,
  writeTokenizerFolder,
} from "../testing/tokenizer-fixtures.js";
import { type HfTokenizer, loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import { collectDemos } from "./demos.js";
import { runRollouts } from "./loop.js";
import { firstPrompt, nextPrompt } from "./prompt.js";
import type { Generator, RolloutOptions, StepRecord } from "./types.js";

const call = (expression: string) =>
  `<tool_call>\n{"name": "calculator", "arguments": {"expression": "${expression}"}}\n</tool_call>`;

/**
 * Three responses per episode: two calculator calls (the first after a <think> block, the second
 * without one) and an answer after another <think> block. Each is written as the template renders an
 * assistant message, so the template's rendering of the conversation holds exactly these ids.
 */
const RESPONSES = [
  `<think>\nadd first\n</think>\n\n${call("2+3")}`,
  call("5*4"),
  "<think>\ndone\n</think>\n\n#### 20",
];

/** A policy for one episode at a time: its k-th call answers RESPONSES[k] and the end-of-turn id. */
function scripted(tok: HfTokenizer): Generator {
  let turn = 0;
  return {
    config: { contextLength: 100_000 },
    sample: async (prompts) => {
      const tokens = prompts.map(() => [...tok.encode(RESPONSES[turn++] ?? "#### 0"), tok.special.endOfTurn]);
      return { tokens, logprobs: tokens.map((t) => t.map(() => -1)), finished: tokens.map(() => true) };
    },
  };
}

let dir = "";
const tokenizers: Record<string, HfTokenizer> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-template-exact-"));
  await writeTokenizerFolder(join(dir, "chatml"), CHATML_TOKENS, {
    chat_template: chatTemplate("chatml"),
    eos_token: "<|im_end|>",
  });
  await writeTokenizerFolder(join(dir, "llama3"), LLAMA3_TOKENS, {
    chat_template: chatTemplate("llama3"),
    bos_token: "<|begin_of_text|>",
    eos_token: "<|eot_id|>",
  });
  for (const [name, folder] of [
    ["qwen3", QWEN3_DIR],
    ["chatml", join(dir, "chatml")],
    ["llama3", join(dir, "llama3")],
  ] as const) {
    const loaded = await loadHfTokenizer(folder);
    if (!loaded.ok) throw new Error(loaded.error);
    tokenizers[name] = loaded.value;
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function calculator() {
  const t = await resolveEnv("local:calculator", { connections: 2 });
  if (!t.ok) throw new Error(t.error);
  const client = new EnvClient(t.value);
  const manifest = await client.manifest();
  if (!manifest.ok) throw new Error("no manifest");
  return { client, tools: manifest.value.tools as ToolSpec[] };
}

/** The template on the whole conversation before step k, the responses as text, plus the generation prompt. */
function reference(
  tok: HfTokenizer,
  start: ChatMessage[],
  steps: StepRecord[],
  k: number,
  tools?: ToolSpec[],
) {
  const messages = [...start];
  for (const s of steps.slice(0, k))
    messages.push({ role: "assistant", content: s.action }, ...s.observation);
  return tok.encode(tok.renderText(messages, { addGenerationPrompt: true, ...(tools ? { tools } : {}) }));
}

const options: RolloutOptions = {
  split: "train",
  tasks: [3],
  groupSize: 1,
  maxLive: 1,
  maxSteps: 3,
  maxNewTokens: 64,
  temperature: 1,
  topP: 1,
  seed: 1,
  renderTools: false,
};

describe("every turn's prompt is the chat template's rendering of the conversation so far", () => {
  for (const name of ["qwen3", "chatml", "llama3"] as const) {
    for (const withTools of name === "qwen3" ? [false, true] : [false]) {
      it(`${name}${withTools ? " with tools" : ""}: 3 turns with tool results`, async () => {
        const tok = tokenizers[name] as HfTokenizer;
        const { client, tools } = await calculator();
        let start: ChatMessage[] = [];
        const { trajectories } = await runRollouts(
          scripted(tok),
          tok,
          client,
          {
            ...options,
            renderTools: withTools,
            start: async (task) => {
              const r = await client.reset(task);
              if (r.ok) start = r.value.observation.messages;
              return r;
            },
          },
          tools,
        );
        const steps = trajectories[0]?.steps ?? [];
        expect(steps.map((s) => s.action)).toEqual(RESPONSES);
        expect(steps.map((s) => s.toolCalls)).toEqual([1, 1, 0]);
        for (const [k, s] of steps.entries()) {
          expect(s.promptIds, `turn ${k}`).toEqual(
            reference(tok, start, steps, k, withTools ? tools : undefined),
          );
        }
        if (withTools) {
          // The tools block is written once, in the system turn.
          const text = tok.decode(steps[2]?.promptIds ?? [], { keepControl: true });
          expect(text.split("# Tools").length).toBe(2);
        }
      });
    }
  }

  it("demonstrations build their prompts the same way", async () => {
    const tok = tokenizers.qwen3 as HfTokenizer;
    const { client, tools } = await calculator();
    const [demo] = await collectDemos(
      client,
      tok,
      { split: "train", tasks: [3], maxSteps: 6, concurrency: 1, renderTools: true },
      tools,
    );
    const start = await client.reset({ split: "train", index: 3 });
    if (!start.ok || !demo) throw new Error("no demo");
    const steps = demo.steps;
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const [k, s] of steps.entries()) {
      expect(s.promptIds, `turn ${k}`).toEqual(
        reference(tok, start.value.observation.messages, steps, k, tools),
      );
    }
  });

  it("qwen3: after a new user query the earlier response keeps its <think> as sampled, where the template drops it", () => {
    const tok = tokenizers.qwen3 as HfTokenizer;
    const start: ChatMessage[] = [{ role: "user", content: "What is 2+3?" }];
    const response = "<think>\nadd them\n</think>\n\n5";
    const ids = [...tok.encode(response), tok.special.endOfTurn];
    const followUp: ChatMessage = { role: "user", content: "And 5*4?" };
    const conv = nextPrompt(tok, firstPrompt(tok, start), ids, response, {
      mode: "append",
      messages: [followUp],
    });
    const whole: ChatMessage[] = [...start, { role: "assistant", content: response }, followUp];
    const template = tok.renderText(whole, { addGenerationPrompt: true });
    // Qwen3's template keeps <think> only for turns after the latest user query, so here it drops it…
    expect(template).not.toContain("<think>");
    // …and the prompt is that rendering with the sampled ids (reasoning included) in the response's place.
    const kept = template.replace("<|im_start|>assistant\n5", `<|im_start|>assistant\n${response}`);
    expect(conv.promptIds).toEqual(tok.encode(kept));
    expect(
      conv.promptIds.slice(tok.encode(tok.renderText(start, { addGenerationPrompt: true })).length),
    ).toEqual(expect.arrayContaining([tok.specialTokens.get("<think>")]));
  });
});
