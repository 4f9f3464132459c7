import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hubClient, newEnv, newTeam, playEpisode } from "../../tests/hub/client.js";

const hub = hubClient((r) => SELF.fetch(r));
const BASE = "http://hub.test";

const page = async (path: string, headers: Record<string, string> = {}) => {
  const res = await SELF.fetch(new Request(BASE + path, { headers, redirect: "manual" }));
  return { status: res.status, text: await res.text(), headers: res.headers };
};

/** A form POST as a browser on the hub's own origin sends it. */
const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  SELF.fetch(
    new Request(BASE + path, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE, ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );

/** Signs `token` in through the form, as a browser does: the session cookie to send back. */
async function signedIn(token: string): Promise<{ cookie: string }> {
  const res = await post("/sign-in", { token });
  expect(res.status).toBe(303);
  const set = res.headers.get("set-cookie") ?? "";
  return { cookie: set.split(";")[0] ?? "" };
}

const SCRIPT = `<script>alert("xss")</script>`;
const IMG = `<img src=x onerror=alert(1)>`;

/** Hostile text must arrive as text: its markup escaped, never as a live element. */
function expectEscaped(html: string) {
  expect(html).not.toContain("<script>alert");
  expect(html).not.toContain("<img src=x");
  expect(html).toContain("&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;");
}

/** A public env whose run has one verified episode carrying `trajectory`, under a hostile model name. */
async function seeded(trajectory: unknown) {
  const a = await newTeam(hub);
  const name = `xss-${crypto.randomUUID().slice(0, 8)}`;
  const created = await hub.call("POST", "/v1/envs", {
    token: a.token,
    body: { owner: a.team, name, visibility: "public", description: `calc ${SCRIPT}`, readme: `read ${IMG}` },
  });
  expect(created.status).toBe(201);
  const v = await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
    token: a.token,
    body: { version: "1.0.0", builtin: "calculator" },
  });
  expect(v.status).toBe(201);
  const ref = `${a.team}/${name}@1.0.0`;
  const run = await hub.call("POST", "/v1/evals", {
    token: a.token,
    body: { env: ref, split: "train", tasks: { count: 10 }, model: { name: `m ${SCRIPT}` }, public: true },
  });
  expect(run.status).toBe(201);
  const id = run.body.id as string;
  const s = await hub.call("POST", `/v1/evals/${id}/sessions`, { token: a.token, body: { index: 0 } });
  const played = await playEpisode(hub, a.token, `/v1/evals/${id}`, s.body.session, false);
  const up = await hub.call("POST", `/v1/evals/${id}/episodes`, {
    token: a.token,
    body: { episodes: [{ episodeId: s.body.episodeId, receipt: played.receipt, trajectory }] },
  });
  expect(up.body.results[0].ok, JSON.stringify(up.body)).toBe(true);
  expect((await hub.call("POST", `/v1/evals/${id}/finish`, { token: a.token })).status).toBe(200);
  return { a, name, ref, id, played };
}

const transcript = {
  messages: [
    { role: "system", content: `sys ${SCRIPT}` },
    { role: "user", content: `what is 2+2? ${IMG}` },
  ],
  steps: [
    {
      action: {
        content: `think ${SCRIPT}<tool_call>{"name":"calc","arguments":{"expr":"</mark><script>x</script>"}}</tool_call>`,
      },
      reward: 0.25,
      observation: [{ role: "tool", tool_call_id: "c1", name: "calc", content: `4 ${SCRIPT}` }],
    },
    { action: { content: "#### 5" }, reward: 0, observation: [], done: true },
  ],
};

describe("the web hub escapes everything users write", () => {
  it("env card, leaderboard, run page and search show script-bearing text as text", async () => {
    const { a, name, id } = await seeded(transcript);
    const card = await page(`/${a.team}/${name}`);
    expect(card.status).toBe(200);
    expect(card.headers.get("content-type")).toContain("text/html");
    // Under the escaping, the policy forbids any script on the pages.
    expect(card.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(card.headers.get("content-security-policy")).not.toContain("script-src");
    expectEscaped(card.text);
    expect(card.text).toContain("&lt;img src=x onerror=alert(1)&gt;");

    const board = await page(`/${a.team}/${name}/leaderboard?version=1.0.0&split=train`);
    expect(board.status).toBe(200);
    expectEscaped(board.text);
    // The model name is also an SVG label: escaped there as well, inside the chart.
    expect(board.text).toMatch(/<svg class="chart"[\s\S]*m &lt;script&gt;alert[\s\S]*<\/svg>/);

    const run = await page(`/runs/${id}`);
    expect(run.status).toBe(200);
    expectEscaped(run.text);
    expect(run.text).not.toContain("<script>x</script>");
    // The tool call is highlighted as one <mark>, its own text (with a fake closing tag) escaped inside.
    expect(run.text).toContain(
      `<mark class="toolcall">&lt;tool_call&gt;{&quot;name&quot;:&quot;calc&quot;,&quot;arguments&quot;:{&quot;expr&quot;:&quot;&lt;/mark&gt;&lt;script&gt;x&lt;/script&gt;&quot;}}&lt;/tool_call&gt;</mark>`,
    );
    expect(run.text).toContain("reward 0.250");
    expect(run.text).toContain("receipt verified");

    const search = await page(`/?q=${encodeURIComponent(`calc ${SCRIPT}`)}`);
    expect(search.status).toBe(200);
    expectEscaped(search.text);
  });

  it("a trajectory of another shape is shown as escaped JSON", async () => {
    const { id } = await seeded({ note: SCRIPT });
    const run = await page(`/runs/${id}`);
    expect(run.text).toContain("&lt;script&gt;alert(\\&quot;xss\\&quot;)&lt;/script&gt;");
    expect(run.text).not.toContain("<script>alert");
  });
});

describe("trajectories read back through the API", () => {
  it("GET /v1/evals/{id}/episodes returns the stored transcript, its receipt checked again", async () => {
    const { id, played } = await seeded(transcript);
    const r = await hub.call("GET", `/v1/evals/${id}/episodes`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    expect(r.body.nextTask).toBeNull();
    expect(r.body.episodes[0]).toMatchObject({
      taskIndex: 0,
      receipt: played.receipt,
      receiptStatus: { verified: true },
      trajectory: transcript,
    });
  });
});

describe("episode pages", () => {
  it("pages episodes in task order, and a private run's episodes are 404 to others", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const run = await hub.call("POST", "/v1/evals", {
      token: a.token,
      body: { env: ref, split: "train", tasks: { count: 3 }, model: { name: "pager" } },
    });
    const id = run.body.id as string;
    const episodes = [];
    for (const index of [2, 0]) {
      const s = await hub.call("POST", `/v1/evals/${id}/sessions`, { token: a.token, body: { index } });
      const played = await playEpisode(hub, a.token, `/v1/evals/${id}`, s.body.session, false);
      episodes.push({ episodeId: s.body.episodeId, receipt: played.receipt });
    }
    await hub.call("POST", `/v1/evals/${id}/episodes`, { token: a.token, body: { episodes } });
    const first = await hub.call("GET", `/v1/evals/${id}/episodes?limit=1`, { token: a.token });
    expect(first.body.episodes.map((e: { taskIndex: number }) => e.taskIndex)).toEqual([0]);
    expect(first.body).toMatchObject({ total: 2, nextTask: 2 });
    expect(first.body.episodes[0].trajectory).toBeNull();
    const second = await hub.call("GET", `/v1/evals/${id}/episodes?limit=1&fromTask=2`, { token: a.token });
    expect(second.body.episodes.map((e: { taskIndex: number }) => e.taskIndex)).toEqual([2]);
    expect(second.body.nextTask).toBeNull();
    // The run is not public: anonymous readers and other teams get the same 404 as for no run.
    const b = await newTeam(hub);
    expect((await hub.call("GET", `/v1/evals/${id}/episodes`)).status).toBe(404);
    expect((await hub.call("GET", `/v1/evals/${id}/episodes`, { token: b.token })).status).toBe(404);
    expect((await page(`/runs/${id}`)).status).toBe(404);
    const own = await page(`/runs/${id}?from=2`, await signedIn(a.token));
    expect(own.status).toBe(200);
    expect(own.text).toContain("<strong>task 2</strong>");
    expect(own.text).not.toContain("<strong>task 0</strong>");
    expect(own.text).toContain("No trajectory was uploaded with this episode.");
  });
});

describe("private envs and signed-in pages", () => {
  it("a private env is 404 on the web to anonymous visitors and other teams, as on the API", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private", description: "secret sauce" });
    const visitors: Record<string, string>[] = [{}, await signedIn(b.token)];
    for (const cookie of visitors) {
      const r = await page(`/${a.team}/${name}`, cookie);
      expect(r.status).toBe(404);
      expect(r.text).not.toContain("secret sauce");
      expect((await page(`/${a.team}/no-such-env`, cookie)).status).toBe(404);
    }
    expect((await hub.call("GET", `/v1/envs/${a.team}/${name}`)).status).toBe(404);
    const own = await page(`/${a.team}/${name}`, await signedIn(a.token));
    expect(own.status).toBe(200);
    expect(own.text).toContain("secret sauce");
  });

  it("sign-in sets an HttpOnly SameSite=Strict cookie (Secure off localhost) and forms need the CSRF token", async () => {
    const a = await newTeam(hub);
    const signIn = await post("/sign-in", { token: a.token });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^edgegym_session=ews_/);
    expect(cookie).not.toContain(a.token);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Secure/i);
    const bad = await post("/sign-in", { token: "egh_nope" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("set-cookie")).toBeNull();

    const session = { cookie: cookie.split(";")[0] ?? "" };
    const account = await page("/account", session);
    expect(account.status).toBe(200);
    const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(account.text)?.[1] ?? "";
    expect(csrf).toHaveLength(40);
    // Without the form token, with a wrong one, or from another origin: refused, nothing created.
    expect((await post("/tokens", { scope: "read" }, session)).status).toBe(403);
    expect((await post("/tokens", { scope: "read", _csrf: "0".repeat(40) }, session)).status).toBe(403);
    const foreign = await post(
      "/tokens",
      { scope: "read", _csrf: csrf },
      { ...session, origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    const made = await post("/tokens", { scope: "read", _csrf: csrf }, session);
    expect(made.status).toBe(201);
    const secret = /<code class="secret">(egh_[\w-]+)<\/code>/.exec(await made.text())?.[1] ?? "";
    expect((await hub.call("GET", "/v1/envs?limit=1", { token: secret })).status).toBe(200);
  });
});
