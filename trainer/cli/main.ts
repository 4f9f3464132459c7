import { Command, CommanderError } from "commander";
import { registerDemos } from "./demos.js";
import { registerEval } from "./eval.js";
import { registerExpand } from "./expand.js";
import { registerHub } from "./hub-commands.js";
import { registerInit } from "./init.js";
import { registerPush } from "./push.js";
import { UserError } from "./run-io.js";
import { registerServe } from "./serve.js";
import { registerSft } from "./sft.js";
import { registerTokenizer } from "./tokenizer.js";
import { registerTrain } from "./train.js";

/**
 * The `edgegym` CLI. Each command group lives in its own module under `trainer/cli/` and registers
 * itself here, so the program stays a list. This is the one place errors are caught: a user's mistake
 * (a `UserError`, or commander's unknown flag / missing value) is one line and exit code 2; anything
 * else is a bug and keeps its stack trace.
 */
const program = new Command()
  .name("edgegym")
  .description("Train and evaluate LLM agents against edgegym/v1 environments; manage the hub.")
  .version("0.1.0")
  .exitOverride()
  .configureOutput({
    // Commander's "error: unknown option '--x'\n(Did you mean --y?)" as one line.
    outputError: (text, write) =>
      write(
        `edgegym: ${text
          .trim()
          .replace(/^error: /, "")
          .replace(/\s*\n\s*/g, "; ")}\n`,
      ),
  });

registerSft(program);
registerTrain(program);
registerEval(program);
registerDemos(program);
registerServe(program);
registerTokenizer(program);
registerExpand(program);
registerHub(program);
registerInit(program);
registerPush(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // Help and --version end with exit code 0; usage errors were printed by outputError above.
    process.exitCode = e.exitCode === 0 ? 0 : 2;
  } else if (e instanceof UserError) {
    process.stderr.write(`edgegym: ${e.message}\n`);
    process.exitCode = 2;
  } else {
    throw e;
  }
}
