import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { playExpert, protocolClient } from "../../tests/conformance/client.js";
import { describeConformance } from "../../tests/conformance/index.js";
import { createEnvironmentApp } from "../kit/index.js";
import { alfworld } from "./index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};
const app = createEnvironmentApp(alfworld);
const send = async (input: string, init?: RequestInit) => app.fetch(new Request(input, init), secrets);

describeConformance("alfworld inside workerd", () => ({
  baseUrl: "http://edgegym.test",
  fetch: send,
  secrets,
  // The expert sends plain-text commands, so the suite's sample call is given.
  toolCall: { name: "env_step", arguments: { command: "look" } },
}));

describe("alfworld inside workerd", () => {
  it("the expert solves train task 0 within the step limit, reward 1", async () => {
    const client = protocolClient({ baseUrl: "http://edgegym.test", fetch: send, secrets });
    const { last } = await playExpert(client, { split: "train", index: 0 }, 50);
    expect(last).toMatchObject({ done: true, reward: 1 });
  });
});
