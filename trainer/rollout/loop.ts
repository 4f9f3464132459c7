import type { SessionResponse, TaskRef, ToolSpec } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import type { EnvClient, InfraFailure } from "../client/env-client.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { Episode, promptRules } from "./episode.js";
import type { Conversation } from "./prompt.js";
import type { Generator, RolloutOptions, RolloutStats, Trajectory } from "./types.js";

/** Counters of rollouts not yet run: every field 0. */
export function emptyRolloutStats(): RolloutStats {
  return { episodes: 0, infraFailures: 0, envSteps: 0, sampledTokens: 0, sampleSeconds: 0, envSeconds: 0 };
}

/** A task's start: one reset whose session token all n rollouts of the group step independently. */
type GroupStart = { group: number; started: SessionResponse };

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
  const rules = promptRules(tokenizer, opts.renderTools ? tools : undefined);
  const stats = emptyRolloutStats();
  const done: Trajectory[] = [];
  const finish = (t: Trajectory) => {
    done.push(t);
    if (t.failure) stats.infraFailures++;
    opts.onEpisode?.(t);
  };

  const queue: { group: number; index: number; fork: number }[] = opts.tasks.flatMap((index, group) =>
    Array.from({ length: opts.groupSize }, (_, fork) => ({ group, index, fork })),
  );
  const starts = new Map<number, Promise<GroupStart | InfraFailure>>();
  const startGroup = (group: number, index: number) => {
    let start = starts.get(group);
    if (start === undefined) {
      const begin = opts.start ?? ((task: TaskRef) => client.reset(task));
      start = begin({ split: opts.split, index }).then((r) => (r.ok ? { group, started: r.value } : r.error));
      starts.set(group, start);
    }
    return start;
  };

  let live: Episode<Conversation>[] = [];
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
        finish(Episode.failed({ episode, group, task: { split: opts.split, index } }, start));
        continue;
      }
      const e = new Episode({ episode, group, task: start.started.task }, start.started, rules);
      // A first prompt with no room for a reply is cut before its first step, as a later one is after
      // its step: the sampler would refuse the whole batch for one task too long for this model.
      if (e.context.promptIds.length + opts.maxNewTokens > policy.config.contextLength) finish(e.finish());
      else live.push(e);
    }
    if (live.length === 0) continue;

    const t0 = performance.now();
    const sampled = await policy.sample(
      live.map((e) => e.context.promptIds),
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

    const still: Episode<Conversation>[] = [];
    live.forEach((e, i) => {
      const { r, action } = results[i] as (typeof results)[number];
      const responseIds = sampled.tokens[i] ?? [];
      stats.sampledTokens += responseIds.length;
      if (!r.ok) {
        finish(e.finish(r.error));
        return;
      }
      stats.envSteps++;
      e.record(
        {
          promptIds: e.context.promptIds,
          responseIds,
          responseLogprobs: sampled.logprobs[i] ?? [],
          action,
          toolCalls: parseHermesCalls(action).length,
        },
        r.value,
      );
      const overLength = e.context.promptIds.length + opts.maxNewTokens > policy.config.contextLength;
      // Ended by the env, or cut here (the step cap, the context): Episode.finish tells which.
      if (e.ended || e.steps.length >= opts.maxSteps || overLength) {
        finish(e.finish());
        return;
      }
      still.push(e);
    });
    live = still;
  }
  done.sort((a, b) => a.episode - b.episode);
  return { trajectories: done, stats };
}
