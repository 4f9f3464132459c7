import { describe, expect, it } from "vitest";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { generateSecrets } from "../kit/index.js";
import { type CalculatorConfig, createCalculator, DEFAULT_CALCULATOR_CONFIG } from "./index.js";

// One task whose solution path is 2+3 = 5, 5*2 = 10, 10+4 = 14.
const variant = {
  name: "calculator-test",
  description: "one hand-made task",
  tasks: {
    id: "one-task",
    splits: ["train"],
    count: () => 1,
    get: () => ({ question: "What is (2+3)*2+4?", answer: 14, calls: ["2+3", "5*2", "10+4"] }),
  },
};

const calls = (...expressions: string[]) =>
  expressions.map((expression) => formatHermesCall("calculator", { expression })).join("\n");

async function play(config: CalculatorConfig, actions: string[]) {
  const env = createCalculator(config, variant);
  const runtime = { bindings: await generateSecrets() };
  let { session } = await env.startSession({ split: "train", index: 0 }, runtime);
  const results = [];
  for (const content of actions) {
    const r = await env.step({ session, action: { content } }, runtime);
    results.push(r);
    session = r.session;
  }
  return results;
}

describe("calculator rewards", () => {
  it("pays process reward once per solution-path value, up to the cap, and the outcome at the end", async () => {
    const [first, again, both, off, answer] = await play(
      { ...DEFAULT_CALCULATOR_CONFIG, processReward: 0.1, processRewardCap: 0.15 },
      [
        calls("3+2"), // 5 is on the path: +0.1
        calls("2+3"), // 5 was already paid for: 0
        calls("7+7", "2*5"), // 14 pays what is left of the cap, 0.15 - 0.1 = 0.05; then 10 finds the cap spent
        calls("1+1"), // 2 is off the path: 0
        "#### 14",
      ],
    );
    expect(first?.reward).toBeCloseTo(0.1, 12);
    expect(first?.info.reward_components).toEqual({ process: 0.1 });
    expect(again?.reward).toBe(0);
    expect(both?.reward).toBeCloseTo(0.05, 12);
    expect(off?.reward).toBe(0);
    expect(answer).toMatchObject({ reward: 1, done: true, info: { reward_components: { outcome: 1 } } });
  });

  it("pays no process reward by default", async () => {
    const [r] = await play(DEFAULT_CALCULATOR_CONFIG, [calls("2+3", "5*2", "10+4")]);
    expect(r?.reward).toBe(0);
    expect(r?.observation.messages.at(-1)?.content).toContain("14");
  });

  it("scores a wrong or missing final answer 0", async () => {
    const [wrong] = await play(DEFAULT_CALCULATOR_CONFIG, ["#### 15"]);
    expect(wrong).toMatchObject({ reward: 0, done: true, info: { answer: 15, expected: 14 } });
    const [missing] = await play(DEFAULT_CALCULATOR_CONFIG, ["I think it is 14"]);
    expect(missing).toMatchObject({ reward: 0, done: true, info: { answer: null, expected: 14 } });
  });
});
