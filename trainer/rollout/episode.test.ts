import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createEnvironmentsHost } from "../../environments/host.js";
import { defineEnvironment } from "../../environments/kit/index.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { aggregate } from "../../shared/eval-aggregate.js";
import { storedReceiptClaims } from "../../shared/receipt.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { EnvClient } from "../client/env-client.js";
import { localTransport } from "../client/transport.js";
import { runRemoteEpisodes } from "../eval/openai-policy.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { collectDemos } from "./demos.js";
import { runRollouts } from "./loop.js";
import type { Generator, Trajectory } from "./types.js";

/**
 * Three tasks on which the formulas the loops and the hub used before disagreed:
 * - `cut`: every action calls `pay` (process reward 0.5); the env cuts the episode at its 2-step
 *   limit. Final reward 0.5 > 0: the hub and the demos counted it solved, rollouts did not.
 * - `close`: answers "close", scored outcome 0.4 > 0 but unsolved by the env's own verdict
 *   (`success: false`). Every old formula counted it solved.
 * - `right`: answers "right", outcome 1, solved.
 */
const SCRIPTS = ["cut", "close", "right"] as const;
const PAY = formatHermesCall("pay", {});
const actionFor = (text: string) =>
  text.includes("task: cut") ? PAY : text.includes("task: close") ? "close" : "right";

const verdict = defineEnvironment<string, null, Record<string, never>>({
  name: "verdict",
  version: "1.0.0",
  description: "An env whose success is stricter than a positive outcome.",
  tools: {
    pay: {
      description: "Pays a process reward.",
      parameters: z.object({}),
      run: () => ({ content: "paid", rewards: { process: 0.5 } }),
    },
  },
  tasks: {
    id: "verdict/1",
    splits: ["train"],
    count: () => SCRIPTS.length,
    get: (_split, index) => SCRIPTS[index] ?? "right",
  },
  limits: { maxSteps: 2 },
  reward: { min: 0, max: 1 },
  config: {},
  initialState: () => null,
  firstObservation: ({ task }) => [{ role: "user", content: `task: ${task}` }],
  finish: (answer) => {
    const reward = answer === "right" ? 1 : 0.4;
    return { reward, components: { outcome: reward }, success: answer === "right" };
  },
  expert: ({ task }) => ({ content: actionFor(`task: ${task}`) }),
});

async function client() {
  const host = createEnvironmentsHost([verdict]);
  return new EnvClient(localTransport(host, "/envs/verdict", await generateSecrets()));
}

const tokenizer = new ByteTokenizer();
const tasks = [0, 1, 2];
const verdicts = (ts: readonly Trajectory[]) => ts.map((t) => [t.success, t.truncated, t.failure]);
// cut: unsolved and truncated; close: unsolved; right: solved; none an infrastructure failure.
const EXPECTED = [
  [false, true, undefined],
  [false, false, undefined],
  [true, false, undefined],
];

describe("one success, the env's", () => {
  it("rollouts, demos and remote evaluation agree with the env, and the hub with its receipts", async () => {
    const policy: Generator = {
      config: { contextLength: 4096 },
      sample: async (prompts) => {
        const tokens = prompts.map((p) => [
          ...tokenizer.encode(actionFor(tokenizer.decode(p))),
          tokenizer.special.endOfTurn,
        ]);
        return { tokens, logprobs: tokens.map((t) => t.map(() => -1)), finished: tokens.map(() => true) };
      },
    };
    const rollouts = await runRollouts(policy, tokenizer, await client(), {
      split: "train",
      tasks,
      groupSize: 1,
      maxLive: 3,
      maxSteps: 4,
      maxNewTokens: 64,
      temperature: 1,
      topP: 1,
      seed: 1,
      renderTools: false,
    });
    expect(verdicts(rollouts.trajectories)).toEqual(EXPECTED);

    const demos = await collectDemos(await client(), tokenizer, {
      split: "train",
      tasks,
      maxSteps: 4,
      concurrency: 1,
      renderTools: false,
    });
    expect(verdicts(demos)).toEqual(EXPECTED);

    // An OpenAI-compatible model answering in-process: the same script on the conversation's text.
    const openai = new OpenAI({
      baseURL: "http://model.invalid/v1",
      apiKey: "x",
      fetch: async (_url, init) => {
        const body = JSON.parse(String(init?.body)) as { messages: { content: string | null }[] };
        const content = actionFor(body.messages.map((m) => m.content ?? "").join("\n"));
        const choice = { index: 0, message: { role: "assistant", content }, finish_reason: "stop" };
        return Response.json({
          id: "c",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [choice],
        });
      },
    });
    const manifest = await (await client()).manifest();
    if (!manifest.ok) throw new Error(manifest.error.detail);
    const remote = await runRemoteEpisodes(openai, "m", await client(), manifest.value, {
      split: "train",
      tasks,
      maxSteps: 4,
      concurrency: 1,
      temperature: 0,
      maxTokens: 64,
      toolFormat: "hermes",
      timeoutMs: 1000,
    });
    expect(verdicts(remote)).toEqual(EXPECTED);

    // The final steps' rewards: 0.5 (the paid step that was cut), 0.4 and 1, all positive.
    const finals = rollouts.trajectories.map((t) => t.steps.at(-1)?.reward);
    expect(finals).toEqual([0.5, 0.4, 1]);
    // The hub reads each receipt's claim: 1 success of 3, where `finalReward > 0` gave 3 of 3.
    const outcomes = rollouts.trajectories.map((t) => {
      const claims = storedReceiptClaims(t.steps.at(-1)?.receipt ?? "");
      if (!claims) throw new Error("no receipt on the final step");
      return claims;
    });
    expect(outcomes.map((o) => o.success)).toEqual([false, false, true]);
    expect(aggregate(outcomes, 0).successRate).toBe(1 / 3);
  });
});
