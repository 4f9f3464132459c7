import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { cliIO, fail } from "./run-io.js";

/** `edgegym demos`: expert demonstrations from `/v1/expert` as trajectories.jsonl (text and ids). */
export function registerDemos(program: Command): void {
  program
    .command("demos")
    .description("collect expert demonstrations through /v1/expert into a JSONL file")
    .requiredOption("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .option("--episodes <n>", "episodes (tasks 0..n-1)", "16")
    .option("--split <split>", "task split", "train")
    .option("--out <file>", "output JSONL", "demos.jsonl")
    .action(async (opts: { env: string; episodes: string; split: string; out: string }) => {
      const { ByteTokenizer } = await import("../tokenizer/byte-tokenizer.js");
      const { collectDemos } = await import("../rollout/demos.js");
      const { connectEnv } = await import("../client/connect-env.js");
      const { episodeMetrics, trajectoryLine } = await import("../rollout/summary.js");
      const env = await connectEnv(opts.env, 16);
      if (!env.ok) return fail(env.error);
      const tokenizer = new ByteTokenizer();
      const tasks = Array.from({ length: Number(opts.episodes) }, (_, i) => i);
      const demos = await collectDemos(
        env.value.client,
        tokenizer,
        {
          split: opts.split,
          tasks,
          maxSteps: env.value.manifest.limits.maxSteps,
          concurrency: 16,
          renderTools: false,
        },
        env.value.manifest.tools,
      );
      await env.value.client.close();
      await writeFile(opts.out, `${demos.map((d) => trajectoryLine(0, d, tokenizer)).join("\n")}\n`);
      const m = episodeMetrics(demos);
      cliIO.log(
        `${demos.length} demos to ${opts.out}: success ${m["reward/success"]?.toFixed(3)}, infra failures ${m["episode/infra_failures"]}`,
      );
    });
}
