import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { hubClient, newEnv, newTeam } from "../hub/client.js";
import { connectStatelessMcp, resultText } from "./play.js";

const viaWorker = (input: string | URL | Request, init?: RequestInit) => SELF.fetch(input, init);
const hub = hubClient((r) => SELF.fetch(r));
type Structured = Record<string, unknown>;
const structured = (r: unknown) => (r as { structuredContent: Structured }).structuredContent;

/** Calculator train/0 by the 2026-07-28 revision: 4*7 + 2*7 = 42 of $90 spent, so the change is 48. */
async function playCalculator(base: string, headers?: Record<string, string>): Promise<Structured> {
  const client = await connectStatelessMcp(`${base}/mcp`, {
    fetch: viaWorker,
    ...(headers ? { headers } : {}),
  });
  expect(client.getProtocolEra()).toBe("modern");
  const started = await client.callTool({ name: "start_episode", arguments: { split: "train", index: 0 } });
  const calc = await client.callTool({
    name: "calculator",
    arguments: { expression: "90-(4*7+2*7)", episode_token: structured(started).episode_token },
  });
  expect(resultText(calc).split("\n")[0]).toBe("48");
  const end = await client.callTool({
    name: "submit_answer",
    arguments: { answer: "#### 48", episode_token: structured(calc).episode_token },
  });
  await client.close();
  return structured(end);
}

describe("MCP's stateless revision on workerd", () => {
  it("plays a built-in on the worker to reward 1, with a receipt that verifies", async () => {
    const final = await playCalculator("http://edgegym.test/envs/calculator");
    expect(final).toMatchObject({ reward: 1, done: true, success: true });
    const manifest = Manifest.parse(
      await (await SELF.fetch("http://edgegym.test/envs/calculator/v1/manifest")).json(),
    );
    expect((await verifyReceipt(String(final.receipt), manifest.publicKey)).ok).toBe(true);
  });

  it("plays a private env through the hub gateway with the owner's token, and refuses it without", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private" });
    const base = `http://hub.test/v1/envs/${a.team}/${name}@1.0.0`;
    const final = await playCalculator(base, { authorization: `Bearer ${a.token}` });
    expect(final).toMatchObject({ reward: 1, done: true });
    await expect(connectStatelessMcp(`${base}/mcp`, { fetch: viaWorker })).rejects.toThrow();
  });
});
