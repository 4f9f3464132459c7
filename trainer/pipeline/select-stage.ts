import type { HubTarget } from "../../hub/client.js";
import { err, ok, type Result } from "../../shared/result.js";
import { startBackend } from "../backend/start-backend.js";
import { connectEnv } from "../client/connect-env.js";
import type { RunIO } from "../run/io.js";
import { curveEnvSpec } from "./curve-stage.js";
import { type GreedyScore, greedyScore } from "./greedy-score.js";
import type { StageContext, StageOf } from "./plan.js";
import type { Recipe } from "./recipe.js";

/** Plays one segment's final checkpoint on the recipe's validation tasks. */
export async function validateCheckpoint(
  recipe: Recipe,
  checkpoint: string,
  hub: HubTarget,
  io: RunIO,
): Promise<Result<GreedyScore>> {
  const select = recipe.select;
  if (!select) return err("the recipe does not select");
  const backend = await startBackend(recipe.rl.backend ?? recipe.sft.backend, io);
  if (!backend.ok) return backend;
  const spec = curveEnvSpec(recipe);
  const connected = await connectEnv(spec, 16, process.env, hub);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  try {
    const n = Math.min(select.n, manifest.splits[select.split] ?? 0);
    const scored = await greedyScore(
      checkpoint,
      { client, tools: manifest.tools },
      { split: select.split, n },
      recipe.eval,
      io,
    );
    return scored.ok ? ok(scored.value) : scored;
  } finally {
    await client.close();
  }
}

/** The validation of one segment's final checkpoint, kept in state.json beside the segment. */
export async function runValidateStage(stage: StageOf<"validate">, ctx: StageContext): Promise<Result<void>> {
  const scored = await validateCheckpoint(ctx.recipe, stage.checkpoint, ctx.hub, ctx.io);
  if (!scored.ok) return scored;
  const segment = ctx.state.segments[stage.segment - 1];
  if (segment) segment.validation = scored.value;
  const v = scored.value;
  ctx.io.log(
    `validate segment ${stage.segment}: success ${v.success.toFixed(3)} (${v.successes}/${v.n}) on ${ctx.recipe.select?.split} tasks 0..${v.n - 1} in ${ctx.seconds()} s`,
  );
  return ok(undefined);
}
