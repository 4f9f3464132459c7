import type { ChatMessage, TaskRef, ToolSpec } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import type { EnvClient, InfraFailure } from "../client/env-client.js";
import type { Tokenizer } from "../policy/types.js";
import { firstPrompt, nextPrompt } from "./prompt.js";
import type { Generator, RolloutOptions, RolloutStats, StepRecord, Trajectory } from "./types.js";

/** A live episode: its session token, the conversation so far and the ids the model conditions on. */
type Live = {
  episode: number;
  episodeId?: string;
  group: number;
  task: TaskRef;
  session: string;
  messages: ChatMessage[];
  promptIds: number[];
  steps: StepRecord[];
};

/** A task's start: one reset whose session token all n rollouts of the group step independently. */
type GroupStart = {
  group: number;
  task: TaskRef;
  session: string;
  episodeId: string;
  messages: ChatMessage[];
};

/**
 * Agent-R1-style step-level rollouts with continuous batching. Each round generates for every live
 * episode in one batched call, steps the envs concurrently, then applies each observation through
 * {@link nextPrompt}: in append mode the template's next turn goes after the sampled ids (which are
 * kept as sampled, never re-tokenized); in replace mode the prompt is rendered afresh. Finished episodes leave the
 * batch and queued ones take their place. An env failure after the client's retries ends that episode
 * as an infrastructure failure and the others go on.
 */
export async function runRollouts(
  policy: Generator,
  tokenizer: Tokenizer,
  client: EnvClient,
  opts: RolloutOptions,
  tools: readonly ToolSpec[] = [],
): Promise<{ trajectories: Trajectory[]; stats: RolloutStats }> {
  const promptTools = opts.renderTools ? tools : undefined;
  const stats: RolloutStats = {
    episodes: 0,
    infraFailures: 0,
    envSteps: 0,
    sampledTokens: 0,
    sampleSeconds: 0,
    envSeconds: 0,
  };
  const done: Trajectory[] = [];
  const finish = (e: Live, extra: { truncated: boolean; failure?: InfraFailure }) => {
    const last = e.steps.at(-1);
    const outcome = last?.info.reward_components.outcome ?? last?.reward ?? 0;
    const success = !extra.truncated && extra.failure === undefined && last?.done === true && outcome > 0;
    const ret = e.steps.reduce((acc, s) => acc + s.reward, 0);
    done.push({
      episode: e.episode,
      ...(e.episodeId ? { episodeId: e.episodeId } : {}),
      group: e.group,
      task: e.task,
      steps: e.steps,
      return: ret,
      success,
      ...extra,
    });
    if (extra.failure) stats.infraFailures++;
    opts.onEpisode?.(done.at(-1) as Trajectory);
  };

  const queue: { group: number; index: number; fork: number }[] = opts.tasks.flatMap((index, group) =>
    Array.from({ length: opts.groupSize }, (_, fork) => ({ group, index, fork })),
  );
  const starts = new Map<number, Promise<GroupStart | InfraFailure>>();
  const startGroup = (group: number, index: number) => {
    let start = starts.get(group);
    if (start === undefined) {
      const begin = opts.start ?? ((task: TaskRef) => client.reset(task));
      start = begin({ split: opts.split, index }).then((r) =>
        r.ok
          ? {
              group,
              task: r.value.task,
              session: r.value.session,
              episodeId: r.value.episodeId,
              messages: r.value.observation.messages,
            }
          : r.error,
      );
      starts.set(group, start);
    }
    return start;
  };

  let live: Live[] = [];
  let nextEpisode = 0;
  let round = 0;
  while (queue.length > 0 || live.length > 0) {
    const admitted = queue.splice(0, Math.max(0, opts.maxLive - live.length));
    const joined = await Promise.all(
      admitted.map(async ({ group, index }) => ({ group, index, start: await startGroup(group, index) })),
    );
    for (const { group, index, start } of joined) {
      const episode = nextEpisode++;
      stats.episodes++;
      if ("kind" in start) {
        finish(
          {
            episode,
            group,
            task: { split: opts.split, index },
            session: "",
            messages: [],
            promptIds: [],
            steps: [],
          },
          { truncated: false, failure: start },
        );
        continue;
      }
      live.push({ ...start, episode, ...firstPrompt(tokenizer, start.messages, promptTools), steps: [] });
    }
    if (live.length === 0) continue;

    const t0 = performance.now();
    const sampled = await policy.sample(
      live.map((e) => e.promptIds),
      {
        maxNewTokens: opts.maxNewTokens,
        temperature: opts.temperature,
        topP: opts.topP,
        stopIds: tokenizer.stopIds,
        seed: opts.seed + round++,
      },
    );
    const t1 = performance.now();
    stats.sampleSeconds += (t1 - t0) / 1000;
    const results = await Promise.all(
      live.map((e, i) => {
        const action = tokenizer.decode(sampled.tokens[i] ?? []);
        return client.step(e.session, { content: action }).then((r) => ({ r, action }));
      }),
    );
    stats.envSeconds += (performance.now() - t1) / 1000;

    const still: Live[] = [];
    live.forEach((e, i) => {
      const { r, action } = results[i] as (typeof results)[number];
      const responseIds = sampled.tokens[i] ?? [];
      stats.sampledTokens += responseIds.length;
      if (!r.ok) {
        finish(e, { truncated: false, failure: r.error });
        return;
      }
      stats.envSteps++;
      const res = r.value;
      const record: StepRecord = {
        episode: e.episode,
        group: e.group,
        step: e.steps.length,
        promptIds: e.promptIds,
        responseIds,
        responseLogprobs: sampled.logprobs[i] ?? [],
        action,
        toolCalls: parseHermesCalls(action).length,
        reward: res.reward,
        done: res.done,
        truncated: res.truncated,
        info: res.info,
        observation: res.done ? [] : res.observation.messages,
        ...(res.receipt ? { receipt: res.receipt } : {}),
      };
      e.steps.push(record);
      if (res.done) {
        finish(e, { truncated: res.truncated });
        return;
      }
      Object.assign(e, nextPrompt(tokenizer, e, responseIds, action, res.observation, promptTools));
      const overLength = e.promptIds.length + opts.maxNewTokens > policy.config.contextLength;
      if (e.steps.length >= opts.maxSteps || overLength) {
        record.truncated = true;
        finish(e, { truncated: true });
        return;
      }
      e.session = res.session;
      still.push(e);
    });
    live = still;
  }
  done.sort((a, b) => a.episode - b.episode);
  return { trajectories: done, stats };
}
