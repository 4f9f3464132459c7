import { describe, expect, it } from "vitest";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import type { Transport } from "../client/transport.js";
import type { SampleOptions } from "../model/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { runRollouts } from "./loop.js";
import type { Generator, RolloutOptions } from "./types.js";

const tokenizer = new ByteTokenizer();
const TOOL_RESPONSE = tokenizer.specialTokens.get("<tool_response>") as number;

/**
 * A scripted policy. The first prompt of each batch answers at once; other prompts call the
 * calculator until they have seen a tool response, then answer. The tool call is spelt with the raw
 * bytes of "<tool_call>" rather than its special id, so re-tokenizing the decoded text would change
 * the ids: the rollout must keep these exact ids.
 */
function scriptedPolicy() {
  const batches: number[][][] = [];
  const raw = (text: string) => [...new TextEncoder().encode(text)];
  const call = [...raw('<tool_call>{"name":"calculator","arguments":{"expression":"2+3"}}</tool_call>')];
  const policy: Generator = {
    config: { contextLength: 4096 },
    sample: async (prompts, _opts: SampleOptions) => {
      batches.push(prompts.map((p) => [...p]));
      const tokens = prompts.map((p, i) =>
        i === 0 || p.includes(TOOL_RESPONSE) ? [...raw("#### 5"), tokenizer.special.endOfTurn] : call,
      );
      return {
        tokens,
        logprobs: tokens.map((t) => t.map((_, j) => -0.1 * (j + 1))),
        finished: tokens.map((t) => t.at(-1) === tokenizer.special.endOfTurn),
      };
    },
  };
  return { policy, batches, call };
}

const options: RolloutOptions = {
  split: "train",
  tasks: [0, 1, 2],
  groupSize: 1,
  maxLive: 2,
  maxSteps: 6,
  maxNewTokens: 64,
  temperature: 1,
  topP: 1,
  seed: 1,
  renderTools: false,
};

async function localClient(wrap?: (t: Transport) => Transport) {
  const t = await resolveEnv("local:calculator", { connections: 4 });
  if (!t.ok) throw new Error(t.error);
  return new EnvClient(wrap ? wrap(t.value) : t.value, {
    retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 10 },
  });
}

describe("runRollouts", () => {
  it("batches live episodes continuously and keeps the sampled ids as they were", async () => {
    const { policy, batches, call } = scriptedPolicy();
    const { trajectories, stats } = await runRollouts(policy, tokenizer, await localClient(), options);
    // Round 0: e0 answers, e1 calls; round 1: e1 answers while the newly started e2 calls; round 2: e2.
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(batches[1]?.map((p) => p.includes(TOOL_RESPONSE))).toEqual([true, false]);
    expect(trajectories.map((t) => t.steps.length)).toEqual([1, 2, 2]);
    expect(stats).toMatchObject({ episodes: 3, infraFailures: 0, envSteps: 5 });

    const [first, second] = trajectories[1]?.steps ?? [];
    if (!first || !second) throw new Error("episode 1 should have two steps");
    expect(first.responseIds).toEqual(call);
    expect(first.toolCalls).toBe(1);
    // The next prompt is the previous prompt, the sampled ids verbatim, <|end|> (the call had no stop
    // id), the observation's turns and the assistant header.
    const observation = first.observation.flatMap((m) => [
      ...tokenizer.renderChat([m], { addGenerationPrompt: false }).slice(1),
    ]);
    expect(second.promptIds).toEqual([
      ...first.promptIds,
      ...call,
      tokenizer.special.endOfTurn,
      ...observation,
      tokenizer.specialTokens.get("<|assistant|>"),
    ]);
    expect(first.observation[0]?.content).toContain("5");
    expect(second.responseLogprobs).toHaveLength(second.responseIds.length);
    expect(second).toMatchObject({ done: true, step: 1, episode: 1, group: 1 });
  });

  it("forks each group's n rollouts from one reset", async () => {
    const { policy, batches } = scriptedPolicy();
    const client = await localClient();
    const { trajectories } = await runRollouts(policy, tokenizer, client, {
      ...options,
      tasks: [7],
      groupSize: 3,
      maxLive: 3,
    });
    expect(trajectories.map((t) => t.group)).toEqual([0, 0, 0]);
    expect(new Set(batches[0]?.map((p) => p.join(","))).size).toBe(1);
    // 1 reset + 1 step (e0) + 2 steps each for e1, e2
    expect(client.stats.requests).toBe(6);
  });

  it("cuts an episode whose first prompt leaves no room for a reply, and plays the others", async () => {
    const { policy, batches } = scriptedPolicy();
    const client = await localClient();
    const first = await runRollouts(policy, tokenizer, client, { ...options, tasks: [0] });
    const promptLength = first.trajectories[0]?.steps[0]?.promptIds.length ?? 0;
    expect(promptLength).toBeGreaterThan(64);
    batches.length = 0;
    // Room for the prompt and 64 new tokens, less one: the sampler would have thrown for the batch.
    const short: Generator = { ...policy, config: { contextLength: promptLength + 63 } };
    const { trajectories } = await runRollouts(short, tokenizer, client, { ...options, tasks: [0] });
    expect(trajectories).toMatchObject([{ steps: [], success: false, truncated: true }]);
    expect(trajectories[0]?.failure).toBeUndefined();
    expect(batches).toEqual([]);
    const roomy: Generator = { ...policy, config: { contextLength: promptLength + 64 } };
    const played = await runRollouts(roomy, tokenizer, client, { ...options, tasks: [0] });
    expect(played.trajectories[0]?.steps.length).toBe(1);
  });

  it("records an unreachable env as an infrastructure failure and finishes the other episodes", async () => {
    const { policy } = scriptedPolicy();
    // Every attempt of the first tool-calling step (episode 1's first step) fails at the network level.
    let doomed: string | undefined;
    const client = await localClient((t) => ({
      ...t,
      request: (method, path, body, signal) => {
        const step = body as { session?: string; action?: { content?: string } };
        if (path === "/v1/step" && step.action?.content?.includes("calculator")) doomed ??= step.session;
        if (path === "/v1/step" && step.session === doomed) return Promise.reject(new Error("ECONNRESET"));
        return t.request(method, path, body, signal);
      },
    }));
    const { trajectories, stats } = await runRollouts(policy, tokenizer, client, { ...options, maxLive: 3 });
    expect(stats).toMatchObject({ episodes: 3, infraFailures: 1 });
    expect(trajectories[1]).toMatchObject({
      steps: [],
      success: false,
      failure: { kind: "network", attempts: 2 },
    });
    expect(trajectories.map((t) => t.steps.length)).toEqual([1, 0, 2]);
    expect(client.stats.failures.network).toBe(1);
  });
});
