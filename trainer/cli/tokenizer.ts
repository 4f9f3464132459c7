import type { Command } from "commander";
import { z } from "zod";
import { resolveConfig } from "../config/parse-config.js";
import { cliIO, fail, overridesFrom, UserError } from "./run-io.js";

/** `edgegym tokenizer`: what it reads and writes. */
const TokenizerConfig = z.strictObject({
  /** An env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string(),
  /** Split whose expert episodes the merges are learned from. */
  split: z.string().default("train"),
  /** Expert episodes (tasks drawn with `seed`). */
  episodes: z.number().int().positive().max(100_000).default(2000),
  /** BPE merges to learn; the vocabulary grows by at most this many tokens. */
  merges: z.number().int().positive().max(65_536).default(1024),
  seed: z.number().int().default(1),
  /** Client-side cap on an expert episode's steps. */
  maxSteps: z.number().int().positive().default(6),
  /** Folder for `tokenizer.json` + `tokenizer_config.json`. */
  out: z.string(),
});

const NAMED = ["env", "split", "episodes", "merges", "seed", "maxSteps", "out"] as const;

/** `edgegym tokenizer`: learns a byte-level BPE tokenizer from an env's expert episodes. */
export function registerTokenizer(program: Command): void {
  program
    .command("tokenizer")
    .description(
      "learn a byte-level BPE tokenizer from an env's expert episodes (for a fresh model's `tokenizer`)",
    )
    .requiredOption("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .requiredOption("--out <dir>", "folder for tokenizer.json and tokenizer_config.json")
    .option("--episodes <n>", "expert episodes to learn from", "2000")
    .option("--merges <n>", "BPE merges to learn", "1024")
    .option("--split <split>", "task split", "train")
    .option("--seed <n>", "seed of the task draw", "1")
    .option("--max-steps <n>", "cap on an expert episode's steps", "6")
    .action(async (opts: Record<string, unknown>) => {
      const config = resolveConfig(TokenizerConfig, {}, overridesFrom(opts, NAMED));
      if (!config.ok) throw new UserError(`bad config: ${config.error}`);
      const { connectEnv } = await import("../client/connect-env.js");
      const { sampleTasks } = await import("../rollout/sample-tasks.js");
      const { trainEnvTokenizer } = await import("../sft/env-tokenizer.js");
      const { env, split, episodes, merges, seed, maxSteps, out } = config.value;
      const connected = await connectEnv(env, 16);
      if (!connected.ok) return fail(connected.error);
      const { client, manifest } = connected.value;
      const size = manifest.splits[split] ?? 0;
      if (size === 0) {
        await client.close();
        throw new UserError(`${manifest.name} has no tasks in split "${split}"`);
      }
      const result = await trainEnvTokenizer(
        client,
        { split, tasks: sampleTasks(size, episodes, seed), maxSteps, renderTools: false },
        { merges, out },
      );
      await client.close();
      if (!result.ok) return fail(result.error);
      const r = result.value;
      cliIO.log(
        `${r.merges} merges (vocabulary ${r.vocabSize}) from ${r.episodes} expert episodes to ${out}: ` +
          `${r.tokensPerEpisode.byte.toFixed(1)} byte tokens per episode → ${r.tokensPerEpisode.bpe.toFixed(1)}`,
      );
    });
}
