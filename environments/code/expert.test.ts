import { describe, expect, it } from "vitest";
import type { Action } from "../../shared/protocol.js";
import { generateSecrets } from "../kit/index.js";
import { code } from "./index.js";
import { runJavaScript } from "./run-queue.js";
import { DEFAULT_SANDBOX_LIMITS } from "./sandbox.js";
import { CODE_SPLITS, codeTask } from "./tasks.js";

const EPISODES = 300;

describe("code tasks and expert", () => {
  it(`the expert earns reward 1 on ${EPISODES} train tasks, answering with what the sandbox printed`, async () => {
    const runtime = { bindings: await generateSecrets() };
    let solved = 0;
    for (let index = 0; index < EPISODES; index++) {
      const started = await code.startSession({ split: "train", index }, runtime);
      let session = started.session;
      let reward = 0;
      for (let step = 0; step < code.limits.maxSteps; step++) {
        const { action } = (await code.expert(session, runtime)) as { action: Action };
        const r = await code.step({ session, action }, runtime);
        session = r.session;
        if (r.done) {
          reward = r.reward;
          break;
        }
      }
      if (reward === 1) solved++;
    }
    expect(solved).toBe(EPISODES);
  });

  it("reference programs print the stored answer on the held-out test split too", async () => {
    for (let index = 0; index < 100; index++) {
      const task = codeTask("test", index);
      const run = await runJavaScript(task.program, DEFAULT_SANDBOX_LIMITS, { maxWaitMs: 5000 });
      expect(run.ok && Number(run.value.stdout.trim()), task.question).toBe(task.answer);
    }
  });

  it("is deterministic by split and index, and the splits are disjoint", () => {
    expect(codeTask("train", 7)).toEqual(codeTask("train", 7));
    expect(codeTask("train", 7)).not.toEqual(codeTask("train", 8));
    // Membership is decided by the question's hash, so overlap in a sample would show a broken rule.
    const test = new Set(Array.from({ length: 300 }, (_, i) => codeTask("test", i).question));
    for (let i = 0; i < 1000; i++) expect(test.has(codeTask("train", i).question)).toBe(false);
    expect(CODE_SPLITS).toEqual({ train: 100_000, test: 1_000 });
  });

  it("covers every kind of problem within the first tasks", () => {
    const questions = Array.from({ length: 80 }, (_, i) => codeTask("train", i).question).join("\n");
    for (const kind of [
      /divisible by/,
      /digit sum/,
      /letter/,
      /overlaps included/,
      /\^\d+ mod/,
      /F\(\d+\) mod/,
      /x\(k\+1\)/,
      /steps until 1/,
    ])
      expect(questions).toMatch(kind);
  });
});
