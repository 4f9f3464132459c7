import { describe, expect, it } from "vitest";
import type { JobState } from "../pipeline/plan.js";
import { parseRecipe } from "../pipeline/recipe.js";
import { fmtCell, resultsTable, timingsTable } from "./table.js";

function run(env: string, algorithm: string, sft: number, rl: number) {
  const recipe = parseRecipe({ description: "d", env: `edgegym/${env}@1.0.0`, rl: { algorithm } });
  if (!recipe.ok) throw new Error(recipe.error);
  const agg = (s: number) => ({
    n: 4,
    verified: 4,
    meanReturn: s,
    successRate: s,
    stderr: 0.25,
    meanSteps: 2,
  });
  const state: JobState = {
    recipe: `${env}-${algorithm}`,
    resolved: recipe.value,
    backend: "wasm",
    sft: { checkpoint: "c", seconds: 61.2 },
    segments: [
      { dir: "s1", iterations: 5, seconds: 30 },
      { dir: "s2", iterations: 5, seconds: 40 },
    ],
    evalSft: { runId: "run_sft", model: "m", checkpoint: "c", aggregate: agg(sft), seconds: 9 },
    evalRl: { runId: "run_rl", model: "m", checkpoint: "c", aggregate: agg(rl), seconds: 8 },
  };
  return { dir: `runs/${env}-${algorithm}`, state, recipe: recipe.value };
}

describe("the results table", () => {
  it("fills measured cells, says where RL does not beat SFT, and leaves the rest 'not run'", () => {
    const md = resultsTable(
      [run("calculator", "grpo", 0.25, 0.5), run("calculator", "steppo", 0.25, 0.25)],
      [{ env: "edgegym/code", split: "train", success: 1, reward: 1, stderr: 0, n: 4, source: "expert" }],
    );
    const lines = md.split("\n");
    expect(lines[0]).toBe(
      "| method | calculator (procedural) | calculator (GSM8K) | search (procedural) | search (HotpotQA sample) | code | webshop (procedural) |",
    );
    const row = (label: string) => (lines.find((l) => l.startsWith(`| ${label} |`)) ?? "").split(" | ");
    // success 0.5 · reward 0.5 ± stderr 0.25 over n=4.
    expect(row("SFT+GRPO")[1]).toBe("0.500 · 0.500 ± 0.250 (n=4)");
    expect(row("SFT+StepPO")[1]).toBe("0.250 · 0.250 ± 0.250 (n=4) — does not beat SFT");
    expect(row("SFT")[1]).toBe("0.250 · 0.250 ± 0.250 (n=4)");
    // A row per method some run used, in the registry's order.
    expect(lines.slice(2).map((l) => l.split(" | ")[0])).toEqual([
      "| expert",
      "| SFT",
      "| SFT+GRPO",
      "| SFT+StepPO",
    ]);
    expect(row("SFT+GRPO")[2]).toBe("not run");
    expect(row("expert")[5]).toBe("1.000 · 1.000 ± 0.000 (n=4) [train split]");
    expect(row("expert")[1]).toBe("not run");

    // A repeat of a run is listed beside the first, each judged against its own SFT evaluation.
    const twice = resultsTable([run("code", "grpo", 0.25, 0.5), run("code", "grpo", 0.25, 0.25)], []).split(
      "\n",
    );
    expect(twice.find((l) => l.startsWith("| SFT+GRPO |"))?.split(" | ")[5]).toBe(
      "0.500 · 0.500 ± 0.250 (n=4)<br>0.250 · 0.250 ± 0.250 (n=4) — does not beat SFT",
    );
  });

  it("names the rows of methods the registry added later (Dr.GRPO, REINFORCE++ with a baseline) by its labels", () => {
    const lines = resultsTable(
      [run("code", "reinforce++-baseline", 0.25, 0.5), run("code", "dr-grpo", 0.25, 0.5)],
      [],
    ).split("\n");
    expect(lines.slice(4).map((l) => l.split(" | ")[0])).toEqual([
      "| SFT+Dr.GRPO",
      "| SFT+REINFORCE++ (baseline)",
    ]);
    expect(lines[4]?.split(" | ")[5]).toBe("0.500 · 0.500 ± 0.250 (n=4)");
  });

  it("gives an env outside the fixed columns (an easier level) a column of its own, after them", () => {
    const lines = resultsTable([run("calculator-l1", "grpo", 0.25, 0.75)], []).split("\n");
    expect(lines[0]?.endsWith("| webshop (procedural) | calculator-l1 |")).toBe(true);
    const cells = (lines.find((l) => l.startsWith("| SFT+GRPO |")) ?? "").split(" | ");
    // Column 7 (after method and the 6 fixed envs): success 0.75 · reward 0.75 ± 0.25 over n=4.
    expect(cells[7]).toBe("0.750 · 0.750 ± 0.250 (n=4) |");
    expect(cells.slice(1, 7).every((c) => c === "not run")).toBe(true);
  });

  it("formats a cell and lists each run's stage timings", () => {
    expect(fmtCell({ success: 0.1234, reward: 0.2, stderr: 0.05, n: 50, source: "x" })).toBe(
      "0.123 · 0.200 ± 0.050 (n=50)",
    );
    // Only episodes that ended with a receipt are verified; the cell says how many when not all.
    expect(fmtCell({ success: 0, reward: 0, stderr: 0, n: 53, verified: 0, source: "x" })).toBe(
      "0.000 · 0.000 ± 0.000 (n=53, 0 verified)",
    );
    expect(fmtCell({ success: 0.5, reward: 0.5, stderr: 0.1, n: 10, verified: 10, source: "x" })).toBe(
      "0.500 · 0.500 ± 0.100 (n=10)",
    );
    const crashed = run("webshop", "grpo", 0, 0);
    crashed.state.failure = { stage: "rl segment 2", error: "a | b" };
    const t = timingsTable([run("code", "grpo", 0, 0), crashed]).split("\n");
    // RL seconds: 30 + 40 = 70 over 5 + 5 = 10 iterations.
    expect(t[2]).toBe(
      "| runs/code-grpo | code-grpo | edgegym/code@1.0.0 | wasm | 61 | 70 (10 it) | 9 | 8 | run_sft | run_rl |  |",
    );
    expect(t[0]?.endsWith("| RL hub run | stopped by |")).toBe(true);
    // The failure is shown, with table pipes escaped.
    expect(t[3]).toMatch(/\| rl segment 2: a \/ b \|$/);
    // A run trained on another env than the one it is evaluated on says both.
    const transfer = run("search-hotpotqa", "grpo", 0, 0);
    transfer.recipe = { ...transfer.recipe, trainEnv: "edgegym/search@1.0.0" };
    expect(timingsTable([transfer]).split("\n")[2]).toContain(
      "| edgegym/search@1.0.0 → edgegym/search-hotpotqa@1.0.0 |",
    );
    // Stages adopted with --reuse name their run folder instead of seconds this run did not spend.
    const rloo = run("code", "rloo", 0, 0);
    rloo.state.sft = { checkpoint: "c", seconds: 61.2, from: "/tmp/runs/code-grpo" };
    if (rloo.state.evalSft) rloo.state.evalSft.from = "/tmp/runs/code-grpo";
    expect(timingsTable([rloo]).split("\n")[2]).toBe(
      "| runs/code-rloo | code-rloo | edgegym/code@1.0.0 | wasm | adopted from code-grpo | 70 (10 it) | adopted from code-grpo | 8 | run_sft | run_rl |  |",
    );
  });
});
