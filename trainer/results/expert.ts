import { parseEnvId } from "../../shared/env-ref.js";
import { aggregate } from "../../shared/eval-aggregate.js";
import { connectEnv } from "../client/connect-env.js";
import { firstTasks, outcomeOf } from "../eval/play-tasks.js";
import { collectDemos } from "../rollout/demos.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import type { ExpertCell } from "./table.js";

/**
 * The env's expert on tasks 0..n−1 of the train split (it refuses the test split), in-process;
 * the figures are over the episodes that ran. A string says why there is no figure.
 */
export async function measureExpert(env: string, n: number): Promise<ExpertCell | string> {
  const name = parseEnvId(env)?.name ?? env;
  const connected = await connectEnv(`local:${name}`, 16);
  if (!connected.ok) return connected.error;
  const { client, manifest } = connected.value;
  try {
    const tasks = firstTasks(Math.min(n, manifest.splits.train ?? 0));
    if (tasks.length === 0) return `${name} has no train tasks`;
    const demos = await collectDemos(client, new ByteTokenizer(), {
      split: "train",
      tasks,
      maxSteps: manifest.limits.maxSteps,
      concurrency: 16,
      renderTools: false,
    });
    const scored = demos.filter((d) => d.failure === undefined);
    if (scored.length === 0) return `${name}: ${demos[0]?.failure?.detail ?? "no episodes"}`;
    const a = aggregate(scored.map(outcomeOf), manifest.reward.min);
    return {
      env,
      split: "train",
      success: a.successRate,
      reward: a.meanReturn,
      stderr: a.stderr,
      n: a.n,
      source: "expert",
    };
  } finally {
    await client.close();
  }
}
