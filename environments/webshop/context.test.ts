import { describe, expect, it } from "vitest";
import type { ChatMessage, StepResult } from "../../shared/protocol.js";
import { openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { createWebshop } from "./index.js";

const runtime = async () => ({
  bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") },
});

/** The expert's episode on train goal `index`: each step's result, until the purchase. */
async function expertSteps(
  env: ReturnType<typeof createWebshop>,
  rt: { bindings: Record<string, unknown> },
  index: number,
) {
  let { session } = await env.startSession({ split: "train", index }, rt);
  const steps: StepResult[] = [];
  for (let i = 0; i < 15; i++) {
    const { action } = await env.expert(session, rt);
    const r = await env.step({ session, action }, rt);
    steps.push(r);
    if (r.done) break;
    session = r.session;
  }
  return steps;
}

const text = (messages: readonly ChatMessage[]) => messages.map((m) => m.content ?? "").join("\n");

describe("webshop context (the default: the last page only)", () => {
  it("replaces the context after every step with the system prompt, the action and the page it led to", async () => {
    const rt = await runtime();
    const env = createWebshop();
    // Goals whose product has options, so that the item page gets a choice: the expert clicks one, and
    // buys a product scored 1 (not every purchase of the expert is; see expert.test.ts).
    let withOption: StepResult[] | undefined;
    for (let index = 0; index < 20 && !withOption; index++) {
      const steps = await expertSteps(env, rt, index);
      const chose = steps.some((s) => /Chosen: /.test(text(s.observation.messages)));
      if (chose && steps.at(-1)?.reward === 1) withOption = steps;
    }
    if (!withOption) throw new Error("no goal among the first 20 has an option to choose");
    for (const s of withOption.slice(0, -1)) {
      expect(s.observation.mode).toBe("replace");
      const [system, assistant, response, ...rest] = s.observation.messages;
      expect(rest).toEqual([]);
      expect(system?.role).toBe("system");
      expect(assistant).toMatchObject({ role: "assistant", content: expect.stringContaining("env_step") });
      expect(response).toMatchObject({
        role: "user",
        content: expect.stringMatching(/^<tool_response>\n.*Instruction: \[SEP\] /),
      });
      // One page, never two: a page is well under 2,000 characters here.
      expect(text(s.observation.messages).length).toBeLessThan(2_500);
    }
    expect(withOption.at(-1)?.done).toBe(true);
    expect(withOption.at(-1)?.reward).toBe(1);
  });

  it("an item page lists the options chosen so far, which the page text alone does not show", async () => {
    const rt = await runtime();
    const history = createWebshop({ context: "history" });
    const page = createWebshop();
    for (let index = 0; index < 20; index++) {
      const a = await expertSteps(page, rt, index);
      const b = await expertSteps(history, rt, index);
      const chosenAt = a.findIndex((s) => /Chosen: /.test(text(s.observation.messages)));
      if (chosenAt < 0) continue;
      const clicked = /click\[([^\]]+)\]/.exec(String(a[chosenAt]?.observation.messages[1]?.content))?.[1];
      expect(text(a[chosenAt]?.observation.messages ?? [])).toContain(`Chosen: ${clicked}`);
      // The same step with the whole history appended: the page alone, no "Chosen".
      expect(b[chosenAt]?.observation.mode).toBe("append");
      expect(text(b[chosenAt]?.observation.messages ?? [])).not.toContain("Chosen:");
      return;
    }
    throw new Error("no goal among the first 20 has an option to choose");
  });

  it("a turn with a bad call is appended, so the model sees the error after its page", async () => {
    const rt = await runtime();
    const env = createWebshop();
    const { session } = await env.startSession({ split: "train", index: 1 }, rt);
    const r = await env.step({ session, action: { content: "<tool_call>{not json</tool_call>" } }, rt);
    expect(r.observation.mode).toBe("append");
    expect(text(r.observation.messages)).toMatch(/error/i);
  });

  it("with context: history, every page is appended", async () => {
    const rt = await runtime();
    const steps = await expertSteps(createWebshop({ context: "history" }), rt, 2);
    expect(steps.every((s) => s.observation.mode === "append")).toBe(true);
    expect(steps.at(-1)?.reward).toBe(1);
  });
});
