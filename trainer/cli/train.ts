import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { resolveTrainConfig } from "../train/config.js";
import { iterationProgress } from "./progress.js";
import { cliIO, collect, fail, overridesFrom } from "./run-io.js";

const NAMED = ["env", "init", "algorithm", "iterations", "out", "backend", "seed", "split"] as const;

/** `edgegym train`: RL from a checkpoint (usually an `edgegym sft` result) or from scratch. */
export function registerTrain(program: Command): void {
  program
    .command("train")
    .description("RL against an environment (GRPO, Dr.GRPO, RLOO, REINFORCE++, GAE/PPO, StepPO)")
    .option("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .option("--init <checkpoint>", "checkpoint folder to start from")
    .option("--algorithm <name>", "advantage estimator")
    .option("--iterations <n>", "RL iterations")
    .option("--split <split>", "task split")
    .option("--out <dir>", "run folder")
    .option("--backend <name>", "tensorflow-gpu | tensorflow | wasm | cpu")
    .option("--seed <n>", "seed")
    .option("--config <file>", "JSON file of config fields")
    .option(
      "--set <key=value>",
      "override any config field (repeatable; dotted keys for model.*)",
      collect,
      [],
    )
    .action(async (opts: Record<string, unknown> & { config?: string; set: string[] }) => {
      const base = opts.config
        ? (JSON.parse(await readFile(opts.config, "utf8")) as Record<string, unknown>)
        : {};
      const config = resolveTrainConfig(base, [...overridesFrom(opts, NAMED), ...opts.set]);
      if (!config.ok) return fail(`bad config: ${config.error}`);
      const { runTraining } = await import("../train/run.js");
      const progress = iterationProgress("train");
      const result = await runTraining(config.value, cliIO, progress.update);
      progress.stop();
      if (!result.ok) return fail(result.error);
      cliIO.log(`run folder: ${result.value.runDir}`);
    });
}
