import { expect, it } from "vitest";
import { expectProblem, type Suite } from "./client.js";
import { forgeToken, tamper } from "./forge.js";

const POSTS = ["/v1/sessions", "/v1/step", "/v1/step:batch", "/v1/expert"] as const;
const MIB = 1024 * 1024;

/** Every error of the protocol's table that a conforming environment must produce. */
export function errorTests(s: Suite): void {
  const solvable = () => s.target.solvable ?? { split: "train", index: 0 };
  const fresh = async () => (await s.client.start(solvable())).session;
  /** Asserts `code` for `session` on /v1/step, /v1/expert and inside a batch. */
  const rejectSession = async (session: string, code: "invalid_session" | "session_expired") => {
    await expectProblem(await s.client.post("/v1/step", { session, action: { content: "#### 1" } }), code);
    await expectProblem(await s.client.post("/v1/expert", { session }), code);
    const { results } = await s.client.batch([{ session, action: { content: "#### 1" } }]);
    expect(results[0]).toMatchObject({ error: { code } });
  };

  it("a body that is not JSON is 400 invalid_json on every route", async () => {
    for (const path of POSTS) await expectProblem(await s.client.post(path, "{not json"), "invalid_json");
  });

  it("a body of the wrong shape is 422 invalid_request with the list of issues", async () => {
    const cases: [string, unknown][] = [
      ["/v1/sessions", { split: 7 }],
      ["/v1/sessions", { split: "train", index: -1 }],
      ["/v1/step", { session: "x" }],
      ["/v1/step", { session: "x", action: {} }],
      ["/v1/step:batch", { steps: "no" }],
      ["/v1/expert", {}],
      ["/v1/sessions", [1, 2]],
    ];
    for (const [path, body] of cases) {
      const p = await expectProblem(await s.client.post(path, body), "invalid_request");
      expect(p.issues?.length, `${path} ${JSON.stringify(body)}`).toBeGreaterThan(0);
    }
  });

  it("an action over maxActionChars is 413 action_too_large", async () => {
    const session = await fresh();
    const content = "x".repeat(s.manifest.limits.maxActionChars + 1);
    await expectProblem(
      await s.client.post("/v1/step", { session, action: { content } }),
      "action_too_large",
    );
    const { results } = await s.client.batch([{ session, action: { content } }]);
    expect(results[0]).toMatchObject({ error: { code: "action_too_large" } });
  });

  it("a body over 1 MiB is refused with 413 before it is parsed, with or without a length", async () => {
    const huge = `{"session": "${"a".repeat(MIB + 10)}`;
    for (const path of POSTS) await expectProblem(await s.client.post(path, huge), "body_too_large");
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await s.client.send(`${s.target.baseUrl}/v1/step`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    await expectProblem(res, "body_too_large");
  });

  it("a modified, truncated or made-up token is 401 invalid_session", async () => {
    const session = await fresh();
    await rejectSession(tamper(session), "invalid_session");
    await rejectSession(session.slice(0, -5), "invalid_session");
    await rejectSession(session.split(".").slice(0, 3).join("."), "invalid_session");
    await rejectSession("not-a-token", "invalid_session");
  });

  it("another environment's token, another deployment's, or an older version's is 401", async () => {
    const session = await fresh();
    const name = s.manifest.name;
    const foreign = await forgeToken(session, s.target.secrets, name, {
      sealAs: `${name}-other`,
      edit: (c) => ({ ...c, env: `${name}-other` }),
    });
    await rejectSession(foreign, "invalid_session");
    const otherSecret = await forgeToken(session, s.target.secrets, name, {
      secret: "another-deployment-secret",
    });
    await rejectSession(otherSecret, "invalid_session");
    const oldVersion = await forgeToken(session, s.target.secrets, name, {
      edit: (c) => ({ ...c, h: `sha256:${"0".repeat(64)}` }),
    });
    await rejectSession(oldVersion, "invalid_session");
    const resealed = await forgeToken(session, s.target.secrets, name);
    await s.client.expert(resealed);
  });

  it("an expired token is 410 session_expired", async () => {
    const ttl = s.manifest.limits.sessionTtlSeconds;
    const expired = await forgeToken(await fresh(), s.target.secrets, s.manifest.name, {
      now: Date.now() - (ttl + 120) * 1000,
      ttlSeconds: ttl,
    });
    await rejectSession(expired, "session_expired");
  });

  it("unknown routes are 404 problems", async () => {
    await expectProblem(await s.client.get("/v1/nope"), "not_found");
    await expectProblem(await s.client.post("/v1/manifest", {}), "not_found");
  });
}
