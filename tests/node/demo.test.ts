import { describe, expect, it } from "vitest";
import { generateSecrets } from "../../environments/kit/index.js";
import { runDemo } from "../../environments/node/demo.js";

describe("npm run demo (the demo's main function)", () => {
  it("plays expert episodes over real HTTP, prints transcripts, and every receipt verifies", async () => {
    const lines: string[] = [];
    const played = await runDemo({
      episodes: 3,
      secrets: await generateSecrets(),
      log: (l) => lines.push(l),
    });
    expect(played).toHaveLength(3);
    for (const e of played) {
      // Procedural calculator tasks: one calculator call, then the answer, scored 1 for a correct answer.
      expect(e).toMatchObject({ steps: 2, reward: 1, return: 1, receiptVerified: true });
    }
    const text = lines.join("\n");
    expect(text).toContain("[system]");
    expect(text).toContain("<tool_response>");
    expect(text).toMatch(/\[assistant\] #### \d/);
    expect(text).toContain("the expert solved 3/3 episodes; every receipt verified: true");
  });
});
