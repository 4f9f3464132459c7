import type { Command } from "commander";
import { resolveConfig } from "../train/config.js";
import { EvalConfig, formatEvalTable } from "../train/eval-config.js";
import { cliIO, collect, fail, overridesFrom } from "./run-io.js";

const NAMED = ["env", "policy", "model", "split", "n", "backend", "seed", "temperature", "upload"] as const;

/** `edgegym eval`: a checkpoint or a remote OpenAI-compatible model on a split; prints a table. */
export function registerEval(program: Command): void {
  program
    .command("eval")
    .description("evaluate a policy on an environment split and print a table")
    .requiredOption("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .requiredOption("--policy <policy>", "checkpoint folder or openai:<baseURL>")
    .option("--model <name>", "model name for openai: policies")
    .option("--split <split>", "task split", "test")
    .option("--n <n>", "tasks 0..n-1")
    .option("--temperature <t>", "0 is greedy")
    .option("--backend <name>", "tensorflow-gpu | tensorflow | wasm | cpu")
    .option("--seed <n>", "seed")
    .option("--upload", "run as a hub evaluation: hub-issued sessions, receipts uploaded (hub:// envs)")
    .option("--set <key=value>", "override any config field (repeatable)", collect, [])
    .action(async (opts: Record<string, unknown> & { set: string[] }) => {
      const config = resolveConfig(EvalConfig, {}, [...overridesFrom(opts, NAMED), ...opts.set]);
      if (!config.ok) return fail(`bad config: ${config.error}`);
      const { runEval } = await import("../train/evaluate.js");
      const result = await runEval(config.value, cliIO);
      if (!result.ok) return fail(result.error);
      process.stdout.write(`${formatEvalTable(result.value)}\n`);
    });
}
