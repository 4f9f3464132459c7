import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcp, resultText } from "../../tests/mcp/play.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { type Listening, listen } from "../node/listen.js";
import { expertCommand } from "./expert.js";
import { play, START } from "./game.js";
import { alfworld } from "./index.js";
import { alfworldTask } from "./world.js";

let server: Listening;
beforeAll(async () => {
  server = await listen(createEnvironmentsHost([alfworld]), await generateSecrets());
});
afterAll(() => server.close());

describe("alfworld as an MCP server on Node", () => {
  it("plays the planner's commands through env_step to reward 1, and lists admissible commands", async () => {
    const { client } = await connectMcp(`${server.url}/envs/alfworld/mcp?split=train&index=2`);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["env_step", "admissible_commands"]));
    const listed = resultText(await client.callTool({ name: "admissible_commands", arguments: {} }));
    expect(listed.split("\n")).toContain("go to drawer 3");
    // The planner's commands, from the same task played in-process.
    const task = alfworldTask("train", 2);
    let state = START;
    let final: Record<string, unknown> | undefined;
    for (let i = 0; i < 20 && final === undefined; i++) {
      const command = expertCommand(task, state);
      state = play(task, state, command).state;
      const result = await client.callTool({ name: "env_step", arguments: { command } });
      expect(result.isError).not.toBe(true);
      const structured = result.structuredContent as { done?: boolean } | undefined;
      if (structured?.done) final = structured as Record<string, unknown>;
    }
    expect(final).toMatchObject({ reward: 1, done: true });
    await client.close();
  });
});
