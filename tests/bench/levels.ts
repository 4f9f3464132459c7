/**
 * Tokens per expert episode at each difficulty level of the procedural envs (docs/environments.md's
 * table): expert demonstrations collected in-process exactly as `edgegym sft` collects them
 * (`collectDemos`, byte tokenizer, no tool schemas in the prompt), then measured per episode. A row is
 * one training sequence: the whole episode for envs that append observations, one row per step for
 * webshop (its observation replaces the context). Prints JSON; no env needs data or a network.
 *
 *   npm run bench:levels -- [--episodes 50] [--split train] [--env calculator-l1 ...]
 */
import { builtinEnvironments } from "../../environments/builtin.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { scriptArgs } from "../../shared/script-args.js";
import { EnvClient } from "../../trainer/client/env-client.js";
import { localTransport } from "../../trainer/client/transport.js";
import { collectDemos } from "../../trainer/rollout/demos.js";
import type { Trajectory } from "../../trainer/rollout/types.js";
import { ByteTokenizer } from "../../trainer/tokenizer/byte-tokenizer.js";

/** The procedural envs and their levels, easiest first; the last of each is the env's top level. */
export const LEVEL_ENVS: Record<string, readonly string[]> = {
  calculator: ["calculator-l1", "calculator-l2", "calculator-l3", "calculator"],
  search: ["search-l1", "search-l2", "search"],
  code: ["code-l1", "code-l2", "code"],
  webshop: ["webshop-l1", "webshop-l2", "webshop"],
  alfworld: ["alfworld-l1", "alfworld-l2", "alfworld"],
};

/** Tokens of each training row of an episode: prompt plus response, one row for appended contexts. */
export function rowTokens(t: Trajectory): number[] {
  const rows: number[] = [];
  for (const [i, s] of t.steps.entries()) {
    const next = t.steps[i + 1];
    // A step whose successor's prompt extends this step's ids is inside one row; count the row at its end.
    const extended =
      next !== undefined &&
      next.promptIds.length >= s.promptIds.length + s.responseIds.length &&
      s.promptIds.every((id, j) => next.promptIds[j] === id);
    if (!extended) rows.push(s.promptIds.length + s.responseIds.length);
  }
  return rows;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

async function measure(name: string, episodes: number, split: string) {
  const env = builtinEnvironments.find((e) => e.name === name);
  if (env === undefined) throw new Error(`no built-in env ${name}`);
  const bindings = await generateSecrets();
  const client = new EnvClient(localTransport(createEnvironmentsHost([env]), `/envs/${name}`, bindings), {
    concurrency: 4,
  });
  const tokenizer = new ByteTokenizer();
  const demos = await collectDemos(client, tokenizer, {
    split,
    tasks: Array.from({ length: episodes }, (_, i) => i),
    maxSteps: env.limits.maxSteps,
    concurrency: 4,
    renderTools: false,
  });
  await client.close();
  const perEpisode = demos.map((d) => rowTokens(d));
  // How many of the test split's tasks differ: small worlds and catalogs repeat tasks.
  const runtime = { bindings };
  const testCount = await env.definition.tasks.count("test", runtime);
  const testTasks = await Promise.all(
    Array.from({ length: testCount }, (_, i) => env.definition.tasks.get("test", i, runtime)),
  );
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    env: name,
    episodes: demos.length,
    success: demos.filter((d) => d.success).length / Math.max(1, demos.length),
    steps: round(mean(demos.map((d) => d.steps.length))),
    tokensPerEpisode: round(mean(perEpisode.map((rows) => rows.reduce((a, b) => a + b, 0)))),
    rowsPerEpisode: round(mean(perEpisode.map((rows) => rows.length))),
    longestRow: Math.max(0, ...perEpisode.flat()),
    distinctTestTasks: `${new Set(testTasks.map((t) => JSON.stringify({ ...t, id: undefined }))).size} of ${testCount}`,
  };
}

const USAGE = `Usage: npm run bench:levels -- [options]

Tokens per expert episode at each difficulty level of the procedural envs, one JSON line per env.

Options:
  --episodes <count>   expert episodes per env (default 50)
  --split <split>      the split the tasks come from (default train)
  --env <name>         an env to measure, e.g. calculator-l1; repeat for several (default all levels)
  -h, --help           this text`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = scriptArgs("bench:levels", USAGE, {
    episodes: { type: "string", default: "50" },
    split: { type: "string", default: "train" },
    env: { type: "string", multiple: true },
  });
  const { values } = args;
  const episodes = args.number("episodes");
  const names = values.env ?? Object.values(LEVEL_ENVS).flat();
  for (const name of names) {
    console.log(JSON.stringify(await measure(name, episodes, values.split)));
  }
}
