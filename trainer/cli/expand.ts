import type { Command } from "commander";
import { z } from "zod";
import { resolveConfig } from "../config/parse-config.js";
import { cliIO, fail, overridesFrom, UserError } from "./run-io.js";

/** `edgegym expand`: what it reads and writes. */
const ExpandConfig = z.strictObject({
  /** The checkpoint folder to deepen. */
  init: z.string(),
  /** Layers of the deeper model: more than the checkpoint has, at most four times as many. */
  layers: z.number().int().positive(),
  /** Folder for the deeper checkpoint. */
  out: z.string(),
});

const NAMED = ["init", "layers", "out"] as const;

/** `edgegym expand`: a checkpoint made deeper by identity blocks, computing what it computed. */
export function registerExpand(program: Command): void {
  program
    .command("expand")
    .description(
      "make a checkpoint deeper with new layers that start as identities (block expansion), so SFT can continue with more capacity",
    )
    .requiredOption("--init <dir>", "checkpoint folder")
    .requiredOption("--layers <n>", "layers of the deeper model")
    .requiredOption("--out <dir>", "folder for the deeper checkpoint")
    .action(async (opts: Record<string, unknown>) => {
      const config = resolveConfig(ExpandConfig, {}, overridesFrom(opts, NAMED));
      if (!config.ok) throw new UserError(`bad config: ${config.error}`);
      const { init, layers, out } = config.value;
      const { initBackend } = await import("../backend/backend.js");
      const backend = await initBackend("wasm");
      if (!backend.ok) return fail(`no tfjs backend: ${backend.error}`);
      const loaded = await cliIO.loadCheckpoint(init);
      if (!loaded.ok) throw new UserError(`cannot load checkpoint ${init}: ${loaded.error}`);
      const { expandDepth } = await import("../checkpoint/expand-depth.js");
      const deeper = await expandDepth(loaded.value, layers);
      if (!deeper.ok) throw new UserError(`${init}: ${deeper.error}`);
      const { checkpoint, plan } = deeper.value;
      const saved = await cliIO.saveCheckpoint(out, checkpoint);
      if (!saved.ok) return fail(`cannot write ${out}: ${saved.error}`);
      const layout = plan.map((s) => (s.identity ? `${s.source}′` : `${s.source}`)).join(", ");
      cliIO.log(
        `${out}: ${layers} layers from the ${loaded.value.model.config.nLayers} of ${init} ` +
          `(old layers ${layout}; ′ marks an identity copy)`,
      );
    });
}
