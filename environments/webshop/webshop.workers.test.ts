import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeConformance } from "../../tests/conformance/index.js";
import { createEnvironmentApp } from "../kit/index.js";
import { createWebshop } from "./index.js";

const secrets = { EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY, EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY };
const app = createEnvironmentApp(createWebshop({ catalogSize: 200 }));
const bindings = { ...secrets, DB: env.DB };
const send = async (input: string, init?: RequestInit) => app.fetch(new Request(input, init), bindings);

describeConformance("webshop inside workerd (real D1, wink-nlp and fuzzball bundled)", () => ({
  baseUrl: "http://edgegym.test",
  fetch: send,
  secrets,
}));

describe("webshop inside workerd", () => {
  it("searches the catalog in D1 with FTS5 and buys with the expert for reward 1", async () => {
    const start = await send("http://edgegym.test/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ split: "train", index: 7 }),
    });
    let { session } = (await start.json()) as { session: string };
    let last = { reward: 0, done: false, info: {} as Record<string, unknown> };
    for (let i = 0; i < 15 && !last.done; i++) {
      const post = (path: string, body: unknown) =>
        send(`http://edgegym.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const { action } = (await (await post("/v1/expert", { session })).json()) as { action: unknown };
      const r = (await (await post("/v1/step", { session, action })).json()) as typeof last & { session: string };
      session = r.session;
      last = r;
    }
    expect(last.done).toBe(true);
    expect(last.reward).toBe(1);
    expect(last.info.reward_details).toMatchObject({ r_type: 1, query_match: 1, title_score: 1, r_price: 1 });
  });
});
