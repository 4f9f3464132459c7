import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../config/parse-config.js";
import { EvalConfig } from "../eval/config.js";
import { summarise } from "../eval/evaluate.js";
import { writeEvalRun } from "../eval/output.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { trajectoryLine } from "./summary.js";
import { parseTrajectoryLines } from "./trajectory-line.js";
import type { Trajectory } from "./types.js";

const tokenizer = new ByteTokenizer();
const ids = (text: string) => tokenizer.encode(text);

/** Two episodes: one that answered, one the env could not start. */
const episodes: Trajectory[] = [
  {
    episode: 0,
    episodeId: "e0",
    group: 0,
    task: { split: "test", index: 0 },
    steps: [
      {
        episode: 0,
        group: 0,
        step: 0,
        promptIds: ids("2+2?"),
        responseIds: ids("4"),
        responseLogprobs: [-0.123456],
        action: "4",
        toolCalls: 0,
        reward: 1,
        done: true,
        truncated: false,
        info: { reward_components: {}, success: true },
        observation: [],
      },
    ],
    return: 1,
    success: true,
    truncated: false,
  },
  {
    episode: 1,
    group: 1,
    task: { split: "test", index: 1 },
    steps: [],
    return: 0,
    success: false,
    truncated: false,
    failure: { kind: "network", detail: "connection refused", attempts: 3 },
  },
];

describe("trajectories.jsonl", () => {
  it("is one schema for the training lines and the evaluation's file", async () => {
    const training = parseTrajectoryLines(episodes.map((t) => trajectoryLine(3, t, tokenizer)).join("\n"));
    if (!training.ok) throw new Error(training.error);
    expect(training.value[0]).toMatchObject({
      iteration: 3,
      steps: [{ response: "4", responseLogprobs: [-0.1235] }],
    });
    expect(training.value[1]?.failure?.kind).toBe("network");

    const config = parseConfig(EvalConfig, { env: "local:calculator", policy: "checkpoint" });
    if (!config.ok) throw new Error(config.error);
    const dir = await mkdtemp(join(tmpdir(), "edgegym-trajectory-line-"));
    await writeEvalRun(dir, config.value, summarise(config.value, episodes, 0), episodes);
    const evaluated = parseTrajectoryLines(await readFile(join(dir, "trajectories.jsonl"), "utf8"));
    if (!evaluated.ok) throw new Error(evaluated.error);
    expect(evaluated.value[0]).toMatchObject({ episodeId: "e0", steps: [{ action: "4", toolCalls: 0 }] });
    expect(evaluated.value.map((t) => t.task.index)).toEqual([0, 1]);
  });

  it("reads the committed evaluation record, and names the line and field that is wrong", async () => {
    const committed = resolve(
      import.meta.dirname,
      "../../docs/results/runs/hotpotqa-search-l1-sft/trajectories.jsonl",
    );
    const read = parseTrajectoryLines(await readFile(committed, "utf8"));
    if (!read.ok) throw new Error(read.error);
    expect(read.value).toHaveLength(53);

    const bad = parseTrajectoryLines(
      `${trajectoryLine(0, episodes[0] as Trajectory, tokenizer)}\n{"episode":1}`,
    );
    expect(bad.ok ? "" : bad.error).toMatch(/^line 2: task: /);
  });
});
