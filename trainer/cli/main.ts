import { Command } from "commander";
import { registerDemos } from "./demos.js";
import { registerEval } from "./eval.js";
import { registerHub } from "./hub-commands.js";
import { registerSft } from "./sft.js";
import { registerTrain } from "./train.js";

/**
 * The `edgegym` CLI. Each command group lives in its own module under `trainer/cli/` and registers
 * itself here, so the program stays a list.
 */
const program = new Command()
  .name("edgegym")
  .description("Train and evaluate LLM agents against edgegym/v1 environments; manage the hub.")
  .version("0.1.0");

registerSft(program);
registerTrain(program);
registerEval(program);
registerDemos(program);
registerHub(program);

await program.parseAsync(process.argv);
