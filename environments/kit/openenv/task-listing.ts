import { Hono } from "hono";
import { z } from "zod";
import { EdgegymError } from "../../../shared/errors.js";
import { readBody } from "../../../shared/http.js";
import type { Manifest } from "../../../shared/protocol.js";
import type { Environment } from "../define-environment.js";
import { toolSpecs } from "../tools.js";
import type { EnvRuntime } from "../types.js";

type AppEnv = { Bindings: Record<string, unknown> };

/** The most tasks one `task_range` answer lists: a range past it is refused, not cut short. */
export const MAX_TASK_RANGE = 1_000;

const SplitBody = z.object({ split: z.string().min(1).max(200) });
const TaskBody = SplitBody.extend({ index: z.number().int().min(0) });
const RangeBody = SplitBody.extend({
  start: z.number().int().min(0).nullish(),
  stop: z.number().int().min(0).nullish(),
});

/**
 * The task listing of OpenReward's environment servers (ORS), which verifiers' and OpenEnv's
 * importers read to enumerate tasks: `GET /list_environments`, then per env `splits`, `num_tasks`,
 * `task`, `task_range` and `tools`. A task is `{ split, index }`, which `/reset` (and every other
 * way to start an episode) takes as it is. Read-only: episodes are played by OpenEnv's routes.
 */
export function taskListingRoutes(
  env: Environment,
  runtime: (bindings: Record<string, unknown> | undefined) => EnvRuntime,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const manifest = (bindings: Record<string, unknown> | undefined) => env.manifest(runtime(bindings));

  app.get("/list_environments", (c) => c.json([env.name]));
  const own = (name: string) => {
    if (name !== env.name)
      throw new EdgegymError("not_found", `no environment "${name}" here; this server has ${env.name}`);
  };

  app.get("/:env/splits", async (c) => {
    own(c.req.param("env"));
    const { splits } = await manifest(c.env);
    return c.json(Object.keys(splits).map((name) => ({ name, type: splitType(name) })));
  });
  app.get("/:env/tools", (c) => {
    own(c.req.param("env"));
    const tools = toolSpecs(env.definition).map((t) => ({
      name: t.function.name,
      description: t.function.description,
      input_schema: { type: "object", ...t.function.parameters },
    }));
    return c.json({ tools });
  });
  app.post("/:env/num_tasks", async (c) => {
    own(c.req.param("env"));
    const { split } = await readBody(c.req.raw, SplitBody);
    return c.json({ num_tasks: countOf(await manifest(c.env), split) });
  });
  app.post("/:env/task", async (c) => {
    own(c.req.param("env"));
    const { split, index } = await readBody(c.req.raw, TaskBody);
    const count = countOf(await manifest(c.env), split);
    if (index >= count)
      throw new EdgegymError(
        "task_out_of_range",
        `split "${split}" has ${count} tasks; index ${index} is past them`,
      );
    return c.json({ task: { split, index }, env_name: env.name });
  });
  app.post("/:env/task_range", async (c) => {
    own(c.req.param("env"));
    const body = await readBody(c.req.raw, RangeBody);
    const count = countOf(await manifest(c.env), body.split);
    const start = Math.min(body.start ?? 0, count);
    const stop = Math.min(body.stop ?? count, count);
    if (stop - start > MAX_TASK_RANGE)
      throw new EdgegymError(
        "invalid_request",
        `a range lists at most ${MAX_TASK_RANGE} tasks; ask for [${start}, ${start + MAX_TASK_RANGE}) and on`,
      );
    const tasks = Array.from({ length: Math.max(0, stop - start) }, (_, i) => ({
      split: body.split,
      index: start + i,
    }));
    return c.json({ tasks, env_name: env.name });
  });
  return app;
}

/** How many tasks `split` has, or `unknown_split` naming the ones there are. */
export function countOf(manifest: Manifest, split: string): number {
  const count = manifest.splits[split];
  if (count === undefined) {
    const names = Object.keys(manifest.splits).join(", ");
    throw new EdgegymError("unknown_split", `unknown split "${split}"; this environment has ${names}`);
  }
  return count;
}

/** ORS names a split's use: edgegym's `train*` splits train, `val*` validate, every other one tests. */
function splitType(name: string): "train" | "validation" | "test" {
  if (name.startsWith("train")) return "train";
  if (name.startsWith("val")) return "validation";
  return "test";
}
