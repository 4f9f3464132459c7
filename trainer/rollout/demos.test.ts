import { describe, expect, it } from "vitest";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { collectDemos } from "./demos.js";

describe("collectDemos", () => {
  it("records the expert's solved episodes as step records ending in end-of-turn", async () => {
    const tokenizer = new ByteTokenizer();
    const t = await resolveEnv("local:calculator", { connections: 2 });
    if (!t.ok) throw new Error(t.error);
    const demos = await collectDemos(new EnvClient(t.value), tokenizer, {
      split: "train",
      tasks: [0, 1, 2, 3],
      maxSteps: 6,
      concurrency: 2,
      renderTools: false,
    });
    expect(demos.map((d) => d.success)).toEqual([true, true, true, true]);
    for (const d of demos) {
      const [call, answer] = d.steps;
      expect(call?.toolCalls).toBe(1);
      expect(answer?.action).toMatch(/^#### /);
      expect(answer?.responseIds.at(-1)).toBe(tokenizer.special.endOfTurn);
      // The answer's prompt extends the call's prompt with the call's ids.
      expect(
        answer?.promptIds.slice(0, (call?.promptIds.length ?? 0) + (call?.responseIds.length ?? 0)),
      ).toEqual([...(call?.promptIds ?? []), ...(call?.responseIds ?? [])]);
    }
  });
});
