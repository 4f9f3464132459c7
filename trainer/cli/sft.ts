import type { Command } from "commander";
import { resolveConfig } from "../config/parse-config.js";
import { SftConfig } from "../sft/config.js";
import { iterationProgress } from "./progress.js";
import { cliIO, collect, fail, overridesFrom, UserError } from "./run-io.js";

const NAMED = ["env", "episodes", "epochs", "init", "out", "backend", "seed", "split"] as const;

/** `edgegym sft`: warm start from expert demonstrations (assistant tokens only). */
export function registerSft(program: Command): void {
  program
    .command("sft")
    .description("supervised warm start on expert demonstrations from /v1/expert")
    .option("--env <env>", "env URL, hub://owner/name@version or local:<name>")
    .option("--episodes <n>", "expert episodes to collect")
    .option("--epochs <n>", "passes over the demonstrations")
    .option("--split <split>", "task split")
    .option("--init <checkpoint>", "checkpoint folder to continue from")
    .option("--out <dir>", "run folder")
    .option("--backend <name>", "tensorflow-gpu | tensorflow | wasm | cpu")
    .option("--seed <n>", "seed")
    .option("--set <key=value>", "override any config field (repeatable)", collect, [])
    .action(async (opts: Record<string, unknown> & { set: string[] }) => {
      const config = resolveConfig(SftConfig, {}, [...overridesFrom(opts, NAMED), ...opts.set]);
      if (!config.ok) throw new UserError(`bad config: ${config.error}`);
      const { runSft } = await import("../sft/run.js");
      const progress = iterationProgress("sft");
      const result = await runSft(config.value, cliIO, progress.update);
      progress.stop();
      if (!result.ok) return fail(result.error);
      cliIO.log(`sft checkpoint: ${result.value.checkpoint}`);
    });
}
