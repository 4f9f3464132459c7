import { describe, expect, it } from "vitest";
import { generateSecrets } from "../kit/index.js";
import { extractAnswer, sameNumber, toNumber } from "./answer.js";
import { createCalculator, DEFAULT_CALCULATOR_CONFIG } from "./index.js";

describe("final answer extraction (GSM8K rules)", () => {
  it("reads the number after the last ####, stripping commas and $", () => {
    expect(extractAnswer("so the total is 1234.\n#### 1,234")).toBe(1234);
    expect(extractAnswer("#### $5")).toBe(5);
    expect(extractAnswer("#### $1,000,000")).toBe(1_000_000);
    expect(extractAnswer("#### 3 is wrong\n#### 4")).toBe(4);
  });
  it("reads negative and decimal numbers", () => {
    expect(extractAnswer("#### -12")).toBe(-12);
    expect(extractAnswer("#### 2.5")).toBe(2.5);
    expect(extractAnswer("#### -0.75")).toBe(-0.75);
    expect(extractAnswer("#### 18.")).toBe(18);
  });
  it("gives nothing without a #### number", () => {
    expect(extractAnswer("the answer is 42")).toBeUndefined();
    expect(extractAnswer("#### forty-two")).toBeUndefined();
    expect(extractAnswer("")).toBeUndefined();
  });
  it("compares numerically with a tolerance for float noise only", () => {
    expect(sameNumber(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameNumber(1234, 1234.5)).toBe(false);
  });
});

// The number ends at its line: a pattern that crossed whitespace and newlines would glue what follows
// the answer onto it ("#### 18\n\n2. Janet" read as 182).
describe("the #### number stops at the end of its line", () => {
  it("does not read the next line or the next number into the answer", () => {
    expect(extractAnswer("#### 18\n\n2. Janet sells the rest")).toBe(18); // not 182
    expect(extractAnswer("#### 18 \n 3 eggs")).toBe(18); // not 183
    expect(extractAnswer("#### 5, 6")).toBe(5); // not 56: the comma ends the number
    expect(extractAnswer("#### 7 8")).toBe(7); // not 78
    expect(extractAnswer("####\n18")).toBeUndefined(); // the number must be on the #### line
  });
  it("allows commas only as thousands separators", () => {
    expect(toNumber("1,234")).toBe(1234);
    expect(toNumber("109,200,000")).toBe(109_200_000); // as GSM8K's own gold answers write it
    expect(toNumber("1,234.5")).toBe(1234.5);
    expect(toNumber("-$1,200")).toBe(-1200);
    expect(toNumber("12,34")).toBeUndefined();
    expect(toNumber("1,2345")).toBeUndefined();
    expect(extractAnswer("#### 12,34")).toBeUndefined();
  });
});

/** What models write at the end of a GSM8K solution, the expected value, and whether strict reads it. */
const MODEL_ENDINGS: [text: string, value: number, strict: boolean][] = [
  ["Janet makes 9 * 2 = $18 every day.\n#### 18", 18, true],
  ["#### 18\n\nExplanation: 16 - 3 - 4 = 9 eggs", 18, true],
  ["Total: 1,080 dollars.\n#### $1,080", 1080, true],
  ["**Answer:**\n#### 18", 18, true],
  ["So the answer is $\\boxed{18}$.", 18, false],
  ["\\boxed{ 1,080 }", 1080, false],
  ["16 - 3 - 4 = 9 eggs, 9 * 2 = 18. The answer is 18.", 18, false],
  ["The final answer is: 42", 42, false],
  ["She makes 9 * 2 = $18 every day at the farmers' market.", 18, false],
];

describe("strict and flexible answer formats on the endings real models write", () => {
  it("strict reads only #### n; flexible also reads \\boxed{n}, 'The answer is n' and the last number", () => {
    for (const [text, value, strict] of MODEL_ENDINGS) {
      expect(extractAnswer(text, "strict"), text).toBe(strict ? value : undefined);
      expect(extractAnswer(text, "flexible"), text).toBe(value);
    }
  });
  it("flexible prefers #### over a box, a box over 'The answer is', that over the last number", () => {
    expect(extractAnswer("\\boxed{3} The answer is 4. 5\n#### 2", "flexible")).toBe(2);
    expect(extractAnswer("The answer is 4. \\boxed{3} then 5", "flexible")).toBe(3);
    expect(extractAnswer("The answer is 4. Check: 2 + 2 = 4, 5 apples", "flexible")).toBe(4);
    expect(extractAnswer("no number here", "flexible")).toBeUndefined();
  });
});

// One task whose answer is 18; a finished episode pays 1 when the format reads 18 and 0 otherwise.
const task = { question: "Janet's ducks…", answer: 18, calls: [] };
const variant = {
  name: "calculator-format-test",
  description: "one hand-made task",
  tasks: { id: "one-task", splits: ["train"], count: () => 1, get: () => task },
};

async function finish(format: "strict" | "flexible", content: string) {
  const env = createCalculator({ ...DEFAULT_CALCULATOR_CONFIG, answerFormat: format }, variant);
  const runtime = { bindings: await generateSecrets() };
  const { session } = await env.startSession({ split: "train", index: 0 }, runtime);
  return { env, runtime, step: await env.step({ session, action: { content } }, runtime) };
}

describe("the calculator env's answerFormat option", () => {
  it("scores '#### 18' followed by a numbered line as 18, and \\boxed{18} only when flexible", async () => {
    expect((await finish("strict", "#### 18\n\n2. Janet")).step.reward).toBe(1);
    expect((await finish("strict", "so \\boxed{18}")).step.reward).toBe(0);
    expect((await finish("flexible", "so \\boxed{18}")).step.reward).toBe(1);
  });
  it("is part of the content hash, so strict and flexible scores are never mixed under one hash", async () => {
    const strict = await finish("strict", "#### 18");
    const flexible = await finish("flexible", "#### 18");
    const [a, b] = await Promise.all([
      strict.env.contentHash(strict.runtime),
      flexible.env.contentHash(flexible.runtime),
    ]);
    expect(a).not.toBe(b);
  });
});
