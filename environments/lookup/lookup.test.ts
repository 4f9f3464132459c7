import { describe, expect, it } from "vitest";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { lookup } from "./index.js";

async function client() {
  const host = createEnvironmentsHost([lookup]);
  const secrets = await generateSecrets();
  const post = async (path: string, body: unknown) => {
    const res = await host.fetch(
      new Request(`http://local/envs/lookup${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      secrets,
    );
    return (await res.json()) as Record<string, unknown> & {
      session: string;
      reward: number;
      done: boolean;
      observation: { messages: { content: string }[] };
    };
  };
  return post;
}

describe("lookup", () => {
  it("asks for x, answers f<x> with x + 17, and pays 1 only for =<x + 17>", async () => {
    const post = await client();
    // train index 3: x = 10 + (3·37 mod 90) = 10 + 21 = 31; f(31) = 31 + 17 = 48.
    const start = await post("/v1/sessions", { split: "train", index: 3 });
    expect(start.observation.messages.map((m) => m.content)).toEqual(["Use f(x), answer =f(x).", "x=31"]);
    const looked = await post("/v1/step", { session: start.session, action: { content: "f31" } });
    expect(looked.done).toBe(false);
    expect(looked.observation.messages.map((m) => m.content).join("")).toContain("48");
    const right = await post("/v1/step", { session: looked.session, action: { content: "=48" } });
    const wrong = await post("/v1/step", { session: looked.session, action: { content: "=47" } });
    expect([right.done, right.reward, wrong.done, wrong.reward]).toEqual([true, 1, true, 0]);
  });

  it("walks test tasks from another offset: test index 0 is x = 10 + 11 = 21", async () => {
    const post = await client();
    const start = await post("/v1/sessions", { split: "test", index: 0 });
    expect(start.observation.messages[1]?.content).toBe("x=21");
  });

  it("the expert looks up, then answers: =<x + 17> on train index 0 (x = 10) is =27", async () => {
    const post = await client();
    let { session } = await post("/v1/sessions", { split: "train", index: 0 });
    const first = (await post("/v1/expert", { session })).action;
    expect(first).toEqual({ content: "f10" });
    session = (await post("/v1/step", { session, action: first })).session;
    const second = (await post("/v1/expert", { session })).action;
    expect(second).toEqual({ content: "=27" });
    expect((await post("/v1/step", { session, action: second })).reward).toBe(1);
  });
});
