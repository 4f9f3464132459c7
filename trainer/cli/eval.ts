import type { Command } from "commander";
import { resolveConfig } from "../config/parse-config.js";
import { EvalConfig, formatEvalTable } from "../eval/config.js";
import { defaultEvalOut } from "../eval/output.js";
import { taskProgress } from "./progress.js";
import { cliIO, collect, fail, overridesFrom, UserError } from "./run-io.js";

const NAMED = [
  "env",
  "policy",
  "model",
  "split",
  "n",
  "maxSteps",
  "maxNewTokens",
  "toolFormat",
  "timeoutMs",
  "retries",
  "concurrency",
  "backend",
  "seed",
  "temperature",
  "upload",
  "out",
] as const;

/**
 * `edgegym eval`: a checkpoint or a remote OpenAI-compatible model on a split; prints a table, writes
 * results.json and trajectories.jsonl to `--out`, and exits 1 when every episode failed for
 * infrastructure (the table names the first error of each kind).
 */
export function registerEval(program: Command): void {
  program
    .command("eval")
    .description("evaluate a policy on an environment split and print a table")
    .requiredOption("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .requiredOption(
      "--policy <policy>",
      "checkpoint folder or openai:<baseURL> (e.g. openai:http://localhost:8000/v1)",
    )
    .option("--model <name>", "model sent to an openai: server; the leaderboard entry's name for any policy")
    .option("--split <split>", "task split", "test")
    .option("--n <n>", "tasks 0..n-1 (default 100)")
    .option("--max-steps <n>", "steps per episode (default 6)")
    .option("--max-new-tokens <n>", "tokens per reply; max_tokens for openai: policies (default 64)")
    .option(
      "--tool-format <format>",
      "openai: how the model calls tools: openai (OpenAI tools) | hermes (<tool_call> text)",
      "openai",
    )
    .option("--timeout-ms <ms>", "openai: deadline of one model call (default 60000)")
    .option("--retries <n>", "openai: retries of a failed model call (default 2)")
    .option("--concurrency <n>", "episodes in flight (default 32)")
    .option("--temperature <t>", "0 is greedy")
    .option("--backend <name>", "tensorflow-gpu | tensorflow | wasm | cpu")
    .option("--seed <n>", "seed")
    .option("--out <dir>", "folder for results.json and trajectories.jsonl (default runs/eval-<time>)")
    .option("--upload", "run as a hub evaluation: hub-issued sessions, receipts uploaded (hub:// envs)")
    .option("--set <key=value>", "override any config field (repeatable)", collect, [])
    .action(async (opts: Record<string, unknown> & { set: string[] }) => {
      const config = resolveConfig(EvalConfig, { out: defaultEvalOut() }, [
        ...overridesFrom(opts, NAMED),
        ...opts.set,
      ]);
      if (!config.ok) throw new UserError(`bad config: ${config.error}`);
      const { runEval } = await import("../eval/evaluate.js");
      const progress = taskProgress("eval", 10);
      const result = await runEval(config.value, cliIO, process.env, progress.update);
      progress.stop();
      if (!result.ok) return fail(result.error);
      process.stdout.write(`${formatEvalTable(result.value)}\n`);
      cliIO.log(`results.json and trajectories.jsonl in ${config.value.out}`);
      const s = result.value;
      if (s.episodes > 0 && s.infraFailures === s.episodes)
        fail(`every one of the ${s.episodes} episodes failed for infrastructure (first errors above)`);
    });
}
