import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { runEval } from "../eval/evaluate.js";
import type { Trajectory } from "../rollout/types.js";
import { type Serving, startServe } from "./server.js";

/**
 * `edgegym eval --policy openai:<serve URL>` against `edgegym serve <checkpoint>` must score each task
 * as `edgegym eval --policy <checkpoint>` does: same greedy actions, same rewards. That holds because
 * the server renders the OpenAI messages with the same `Tokenizer.renderChat` the rollout uses, and
 * the byte tokenizer's renderings concatenate, so the full conversation rendered afresh equals the
 * rollout's prompt (sampled ids plus appended observations) as long as the sampled text re-encodes
 * to the sampled ids. `--tool-format hermes`: the checkpoint was trained on the env's `<tool_call>`
 * text without a tool list in its prompt, which is what the in-process eval gives it too.
 * `maxNewTokens` 96 makes a few conversations outgrow the context (see the last check).
 */
const CHECKPOINT = "recipes/checkpoints/calculator-sft";
const TASKS = 12;
const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
let serving: Serving;

beforeAll(async () => {
  const started = await startServe(
    { checkpoint: CHECKPOINT, port: 0, host: "127.0.0.1", backend: "wasm", maxBatch: 32 },
    io,
  );
  if (!started.ok) throw new Error(started.error);
  serving = started.value;
});
afterAll(() => serving?.close());

async function evaluate(policy: string, extra: Record<string, unknown>) {
  const out = await mkdtemp(join(tmpdir(), "edgegym-serve-eval-"));
  const summary = await runEval(
    {
      env: "local:calculator",
      policy,
      n: TASKS,
      temperature: 0,
      maxNewTokens: 96,
      backend: "wasm",
      out,
      ...extra,
    },
    io,
  );
  if (!summary.ok) throw new Error(summary.error);
  const lines = (await readFile(join(out, "trajectories.jsonl"), "utf8")).trim().split("\n");
  return { summary: summary.value, episodes: lines.map((l) => JSON.parse(l) as Trajectory) };
}

/** The text the model wrote at each step: the remote policy records its action as OpenAI JSON. */
const texts = (t: Trajectory, remote: boolean) =>
  t.steps.map((s) => (remote ? (JSON.parse(s.action) as { content: string }).content : s.action));

describe("serve ≡ in-process eval", () => {
  it("gives the same greedy actions, rewards and success on calculator test tasks", async () => {
    const local = await evaluate(CHECKPOINT, {});
    const remote = await evaluate(`openai:${serving.url}/v1`, { toolFormat: "hermes" });
    const perTask = (r: typeof local, isRemote: boolean) =>
      r.episodes.map((t) => ({
        task: t.task.index,
        return: t.return,
        success: t.success,
        truncated: t.truncated,
        texts: texts(t, isRemote),
      }));
    expect(perTask(remote, true)).toEqual(perTask(local, false));
    expect(remote.summary.success).toBe(local.summary.success);
    expect(remote.summary.infraFailures).toBe(0);
    // Both outcomes occur, so equal lists are not two lists of the same constant.
    const returns = new Set(local.episodes.map((t) => t.return));
    expect(returns.size).toBeGreaterThan(1);
    // 96 new tokens: some second turns would pass the 384-token context. In-process rollouts end them
    // truncated; the server refuses them (context_length_exceeded) and eval ends them truncated too.
    expect(local.episodes.filter((t) => t.truncated).length).toBeGreaterThan(0);
  }, 240_000);
});
