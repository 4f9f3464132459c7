import type { Command } from "commander";

/** The flags every hub command takes; without them the environment and `edgegym login`'s file decide. */
export const hubOptions = (c: Command): Command =>
  c
    .option("--hub <url>", "hub URL (env EDGEGYM_HUB_URL)")
    .option("--token <token>", "API token (env EDGEGYM_TOKEN)");
