import { describe, expect, it } from "vitest";
import { calculator } from "../../environments/calculator/index.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { protocolClient } from "../conformance/client.js";
import { serveOnNode } from "../conformance/node-target.js";

describe("sessions live in the token, not the server", () => {
  it("a restarted server carries on a session, and two instances serve one episode in turns", async () => {
    const secrets = await generateSecrets();
    const first = await serveOnNode([calculator], { secrets });
    const a = protocolClient(first);
    const start = await a.start({ split: "train", index: 4 });
    const action = await a.expert(start.session);
    const before = await a.step(start.session, action);
    await first.close?.();

    const [second, third] = await Promise.all([
      serveOnNode([calculator], { secrets }),
      serveOnNode([calculator], { secrets }),
    ]);
    const b = protocolClient(second);
    const c = protocolClient(third);
    const again = await b.step(start.session, action);
    expect({ ...again, session: "" }).toEqual({ ...before, session: "" });
    const answer = await c.expert(again.session);
    const end = await b.step(again.session, answer);
    // Procedural task: one calculator call, then the answer, which the expert gets right: reward 1.
    expect([end.done, end.reward]).toEqual([true, 1]);
    await Promise.all([second.close?.(), third.close?.()]);
  });
});
