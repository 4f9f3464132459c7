import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeConformance } from "../../tests/conformance/index.js";
import { createEnvironmentApp } from "../kit/index.js";
import { alfworld } from "./index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};
const app = createEnvironmentApp(alfworld);
const send = async (input: string, init?: RequestInit) => app.fetch(new Request(input, init), secrets);
const post = (path: string, body: unknown) =>
  send(`http://edgegym.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describeConformance("alfworld inside workerd", () => ({
  baseUrl: "http://edgegym.test",
  fetch: send,
  secrets,
  // The expert sends plain-text commands, so the suite's sample call is given.
  toolCall: { name: "env_step", arguments: { command: "look" } },
}));

describe("alfworld inside workerd", () => {
  it("the expert solves train task 0 within the step limit, reward 1", async () => {
    let { session } = (await (await post("/v1/sessions", { split: "train", index: 0 })).json()) as {
      session: string;
    };
    let last = { reward: 0, done: false };
    for (let i = 0; i < 50 && !last.done; i++) {
      const { action } = (await (await post("/v1/expert", { session })).json()) as { action: unknown };
      const r = (await (await post("/v1/step", { session, action })).json()) as typeof last & {
        session: string;
      };
      last = r;
      session = r.session;
    }
    expect(last).toMatchObject({ done: true, reward: 1 });
  });
});
