import { err, ok, type Result } from "../../shared/result.js";
import { connectEnv } from "../client/connect-env.js";

/**
 * How many of `tasks` of a split are different tasks, as the policy sees them: the number of
 * distinct first observations (every message of the reset). A low level of a procedural env draws
 * from a small space, so 500 test indices can be far fewer questions; the results table says so.
 * `spec` is an `--env` value (the built-in env in-process, `local:<name>`).
 */
export async function distinctTasks(
  spec: string,
  split: string,
  tasks: readonly number[],
): Promise<Result<{ distinct: number; n: number }>> {
  const connected = await connectEnv(spec, 16);
  if (!connected.ok) return connected;
  const { client } = connected.value;
  try {
    const seen = new Set<string>();
    // In chunks: a reset is cheap in-process, but thousands at once would all hold a session.
    for (let i = 0; i < tasks.length; i += 64) {
      const chunk = tasks.slice(i, i + 64);
      const resets = await Promise.all(chunk.map((index) => client.reset({ split, index })));
      for (const r of resets) {
        if (!r.ok) return err(`${spec}: reset failed: ${r.error.detail}`);
        seen.add(JSON.stringify(r.value.observation.messages));
      }
    }
    return ok({ distinct: seen.size, n: tasks.length });
  } finally {
    await client.close();
  }
}
