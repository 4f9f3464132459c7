import { err, ok, type Result } from "../../shared/result.js";
import { connectEnv } from "../client/connect-env.js";
import type { EnvClient } from "../client/env-client.js";
import { localBuiltin, localDataBindings } from "../client/resolve-env.js";

/** Train tasks compared with the test tasks by `npm run results`: 10,000 resets take 3–6 s in-process. */
export const TRAIN_CHECKED = 10_000;

export type TaskCount = {
  /** Tasks asked about and how many of them differ. */
  n: number;
  distinct: number;
  /** Task i's key at position i: equal keys are the same task as the policy sees it. */
  keys: string[];
  /** How many of the distinct ones also occur among train tasks 0..checked−1 (when asked). */
  inTrain?: { checked: number; count: number };
};

/** Each task as the policy sees it, in order: every message of its reset. */
async function taskKeys(
  client: EnvClient,
  split: string,
  tasks: readonly number[],
): Promise<Result<string[]>> {
  const seen: string[] = [];
  // In chunks: a reset is cheap in-process, but thousands at once would all hold a session.
  for (let i = 0; i < tasks.length; i += 64) {
    const chunk = tasks.slice(i, i + 64);
    const resets = await Promise.all(chunk.map((index) => client.reset({ split, index })));
    for (const r of resets) {
      if (!r.ok) return err(`reset of a ${split} task failed: ${r.error.detail}`);
      seen.push(JSON.stringify(r.value.observation.messages));
    }
  }
  return ok(seen);
}

/**
 * How many of `tasks` of a split are different tasks, as the policy sees them (distinct first
 * observations), and with `trainChecked` > 0, how many of those also occur among the train split's
 * first `trainChecked` tasks. A low level of a procedural env draws from a small space, so 500 test indices
 * can be far fewer questions, most of which RL may have trained on; the results table says so.
 * `spec` is an `--env` value (the built-in env in-process, `local:<name>`).
 */
export async function distinctTasks(
  spec: string,
  split: string,
  tasks: readonly number[],
  trainChecked = 0,
): Promise<Result<TaskCount>> {
  const connected = await connectEnv(spec, 16);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  try {
    const keys = await taskKeys(client, split, tasks);
    if (!keys.ok) return err(`${spec}: ${keys.error}`);
    const count: TaskCount = { n: tasks.length, distinct: new Set(keys.value).size, keys: keys.value };
    const size = Math.min(manifest.splits.train ?? 0, trainChecked);
    if (size === 0) return ok(count);
    const trainKeys = await taskKeys(
      client,
      "train",
      Array.from({ length: size }, (_, i) => i),
    );
    if (!trainKeys.ok) return err(`${spec}: ${trainKeys.error}`);
    const train = new Set(trainKeys.value);
    const shared = [...new Set(keys.value)].filter((k) => train.has(k)).length;
    return ok({ ...count, inTrain: { checked: size, count: shared } });
  } finally {
    await client.close();
  }
}

/** Each task's cluster, in order, and what the clusters are ("products"). */
export type TaskClusters = { unit: string; keys: readonly string[] };

/**
 * The cluster of each of `tasks` of a split when the built-in env `spec` (`local:<name>[@<version>]`)
 * declares one (`taskCluster`: WebShop's product), so that a paired comparison clusters its standard
 * error by what the tasks share rather than by task; `undefined` when it declares none.
 */
export async function taskClusters(
  spec: string,
  split: string,
  tasks: readonly number[],
): Promise<Result<TaskClusters | undefined>> {
  const env = localBuiltin(spec);
  if (!env.ok) return env;
  const { definition } = env.value;
  const cluster = definition.taskCluster;
  if (cluster === undefined) return ok(undefined);
  // Only a dataset-backed env's tasks need a binding (its imported data); no session is opened.
  const bindings = await localDataBindings(process.env);
  const keys: string[] = [];
  for (const index of tasks) keys.push(cluster.of(await definition.tasks.get(split, index, { bindings })));
  return ok({ unit: cluster.unit, keys });
}
