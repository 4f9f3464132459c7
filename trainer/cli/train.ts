import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { DEFAULT_METHOD, METHOD_ALIASES, METHODS } from "../algos/registry.js";
import { resolveTrainConfig } from "../rl/config.js";
import { iterationProgress } from "./progress.js";
import { cliIO, collect, fail, overridesFrom, UserError } from "./run-io.js";

const NAMED = ["env", "init", "algorithm", "iterations", "out", "backend", "seed", "split"] as const;

/** `--algorithm`'s help: every method of trainer/algos/registry.ts, what it is, and the older names. */
const METHODS_HELP = `RL method (default ${DEFAULT_METHOD}): ${[
  ...Object.entries(METHODS).map(([name, m]) => `${name} (${m.summary})`),
  ...Object.entries(METHOD_ALIASES).map(([old, name]) => `${old} (read as ${name})`),
].join("; ")}`;

/** `edgegym train`: RL from a checkpoint (usually an `edgegym sft` result) or from scratch. */
export function registerTrain(program: Command): void {
  program
    .command("train")
    .description(
      `RL against an environment (${Object.values(METHODS)
        .map((m) => m.label)
        .join(", ")})`,
    )
    .option("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .option("--init <checkpoint>", "checkpoint folder to start from")
    .option("--algorithm <name>", METHODS_HELP)
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
      const base = opts.config ? await readConfigFile(opts.config) : {};
      const config = resolveTrainConfig(base, [...overridesFrom(opts, NAMED), ...opts.set]);
      if (!config.ok) throw new UserError(`bad config: ${config.error}`);
      const { runRl } = await import("../rl/run.js");
      const progress = iterationProgress("train");
      const result = await runRl(config.value, cliIO, progress.update);
      progress.stop();
      if (!result.ok) return fail(result.error);
      cliIO.log(`run folder: ${result.value.runDir}`);
    });
}

/** `--config <file>`: a JSON object of config fields; a missing or malformed file is the user's mistake. */
async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new UserError(`--config ${file}: ${code === "ENOENT" ? "no such file" : String(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UserError(`--config ${file} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new UserError(`--config ${file}: expected a JSON object of config fields`);
  return json as Record<string, unknown>;
}
