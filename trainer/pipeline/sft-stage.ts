import { resolve } from "node:path";
import { ok, type Result } from "../../shared/result.js";
import { checkpointShape } from "../checkpoint/load-policy.js";
import { runSft } from "../sft/sft-run.js";
import { baseDir } from "./recipe.js";
import type { StageContext, StageOf } from "./stage.js";

/** SFT on the recipe's expert demos through the hub gateway, from its base checkpoint or a fresh model. */
export async function runSftStage(stage: StageOf<"sft">, ctx: StageContext): Promise<Result<void>> {
  const { recipe, io } = ctx;
  io.log(
    `stage sft: ${recipe.sft.episodes} expert demos from ${ctx.env}, ${recipe.sft.epochs} epochs, from ${recipe.base ?? "a fresh model"}`,
  );
  const base =
    recipe.base === undefined
      ? {}
      : { init: resolve(baseDir(), recipe.base), model: checkpointShape(recipe.sft.model) };
  const sft = await runSft({ ...recipe.sft, ...base, env: ctx.env, out: stage.out }, io, (e, total, m) => {
    ctx.progress("sft", e, total, m);
    ctx.stopIfAsked();
  });
  if (!sft.ok) return sft;
  ctx.state.sft = { checkpoint: sft.value.checkpoint, seconds: ctx.seconds() };
  return ok(undefined);
}
