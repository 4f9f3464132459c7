import { Command } from "commander";

/**
 * The `edgegym` CLI. Each command group lives in its own module under `trainer/cli/` and registers
 * itself here, so the program stays a list.
 */
const program = new Command()
  .name("edgegym")
  .description("Train and evaluate LLM agents against edgegym/v1 environments; manage the hub.")
  .version("0.1.0");

await program.parseAsync(process.argv);
