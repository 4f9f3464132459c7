import { env, SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { openHandle } from "../../hub/evals/handle.js";
import { HostedInfo, HostedSource } from "../../shared/hosted.js";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { VersionDetail } from "../../shared/registry.js";
import { connectMcp } from "../mcp/play.js";
import { hubClient, newEnv, newTeam, playEpisode } from "./client.js";
import { appModule, plainBundle, pushEnv } from "./hosted/push.js";

const hub = hubClient((r) => SELF.fetch(r));
const envToken = async (handle: string) => (await openHandle(handle, env, Date.now())).token;

describe("hosted environments", () => {
  it("publishes a pushed bundle with hub-made keys and serves it through the gateway", async () => {
    const a = await newTeam(hub);
    const { name, published } = await pushEnv(hub, a, plainBundle());
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    expect(published.body).toMatchObject({ source: "hosted", endpoint: null, builtin: null });

    const detail = await hub.call("GET", `/v1/envs/${a.team}/${name}/versions/1.0.0`);
    const parsed = VersionDetail.parse(detail.body);
    const hosted = HostedInfo.parse(parsed.hosted);
    expect(hosted.bundleHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hosted).toMatchObject({ mainModule: "app.js", outbound: [] });
    expect(hosted.modules).toEqual([{ name: "app.js", type: "esm", bytes: hosted.bytes }]);
    // The key is the hub's, made for this version: not the hub's own built-ins' key.
    const builtin = Manifest.parse(
      await (await SELF.fetch("http://hub.test/envs/calculator/v1/manifest")).json(),
    );
    expect(parsed.manifest.name).toBe("guess-number");
    expect(parsed.manifest.publicKey.x).not.toBe(builtin.publicKey.x);

    const source = await hub.call("GET", `/v1/envs/${a.team}/${name}/versions/latest/source`);
    expect(source.status).toBe(200);
    // Readers see the module as pushed, not as instrumented.
    expect(HostedSource.parse(source.body)).toEqual({ mainModule: "app.js", modules: [appModule()] });

    // Other versions have no source; a private env's is as invisible as the env.
    const builtinEnv = await newEnv(hub, a, { visibility: "private" });
    const none = await hub.call("GET", `/v1/envs/${a.team}/${builtinEnv.name}/versions/1.0.0/source`, {
      token: a.token,
    });
    expect([none.status, none.body.code]).toEqual([404, "not_found"]);
    const b = await newTeam(hub);
    const hidden = await pushEnv(hub, b, plainBundle(), "1.0.0", "private");
    expect(hidden.published.status).toBe(201);
    const path = `/v1/envs/${b.team}/${hidden.name}/versions/1.0.0/source`;
    expect((await hub.call("GET", path, { token: a.token })).status).toBe(404);
    expect((await hub.call("GET", path, { token: b.token })).status).toBe(200);

    const base = `/v1/envs/${a.team}/${name}@1.0.0`;
    const m = await hub.call("GET", `${base}/v1/manifest`);
    expect(m.body).toEqual(parsed.manifest);
    const s = await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 2 } });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const played = await playEpisode(hub, undefined, base, s.body.session, true);
    expect(played.reward).toBe(1);
    const verified = await verifyReceipt(played.receipt, parsed.manifest.publicKey);
    expect(verified.ok && [verified.value.env, verified.value.contentHash]).toEqual([
      "guess-number",
      parsed.manifest.contentHash,
    ]);
  });

  it("runs an evaluation with receipts and a leaderboard entry, and speaks MCP", async () => {
    const a = await newTeam(hub);
    const { name, ref, published } = await pushEnv(hub, a, plainBundle());
    expect(published.status).toBe(201);
    const run = await hub.call("POST", "/v1/evals", {
      token: a.token,
      body: {
        env: ref,
        split: "train",
        tasks: { count: 2 },
        model: { name: "hosted-model", params: "1M" },
        public: true,
      },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const episodes = [];
    for (const index of [0, 1]) {
      const s = await hub.call("POST", `/v1/evals/${run.body.id}/sessions`, {
        token: a.token,
        body: { index },
      });
      expect(s.status).toBe(201);
      const p = await playEpisode(hub, a.token, `/v1/envs/${ref}`, s.body.session, true, envToken);
      episodes.push({ episodeId: s.body.episodeId, receipt: p.receipt });
    }
    const up = await hub.call("POST", `/v1/evals/${run.body.id}/episodes`, {
      token: a.token,
      body: { episodes },
    });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true]);
    const fin = await hub.call("POST", `/v1/evals/${run.body.id}/finish`, { token: a.token });
    expect(fin.status, JSON.stringify(fin.body)).toBe(200);
    expect(fin.body.aggregate).toMatchObject({ n: 2, verified: 2, successRate: 1 });
    const board = await hub.call("GET", `/v1/envs/${a.team}/${name}/leaderboard?split=train&minTasks=2`);
    expect(board.body.entries).toMatchObject([{ rank: 1, model: "hosted-model", runId: run.body.id }]);

    const { client } = await connectMcp(`http://hub.test/v1/envs/${ref}/mcp?split=train&index=0`, {
      fetch: (input, init) => SELF.fetch(input, init),
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["guess", "submit_answer"]);
    const reply = await client.callTool({ name: "guess", arguments: { number: 50 } });
    expect(JSON.stringify(reply.content)).toMatch(/higher|lower|correct/);
    await client.close();
  });

  it("serves the search env pushed as a user would push it: the same episode as the built-in", async () => {
    const a = await newTeam(hub);
    const bundle = { mainModule: "app.js", modules: [{ ...appModule(), content: inject("hostedSearch") }] };
    const { ref, published } = await pushEnv(hub, a, { ...bundle, outbound: [] });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const play = async (base: string) => {
      const s = await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 0 } });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      const p = await playEpisode(hub, undefined, base, s.body.session, true);
      return { first: s.body.observation, reward: p.reward, steps: p.steps };
    };
    const hosted = await play(`/v1/envs/${ref}`);
    expect(hosted).toEqual(await play("/envs/search"));
    expect(hosted.reward).toBe(1);
  });
});
