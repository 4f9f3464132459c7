import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openHandle } from "../../hub/evals/handle.js";
import type { ReceiptClaims } from "../../shared/protocol.js";
import { generateSigningJwk, importSigningJwk, signReceipt } from "../../shared/receipt.js";
import { type HubClient, hubClient, newEnv, newTeam, newToken, playEpisode } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

type Team = { team: string; token: string };

async function newRun(
  h: HubClient,
  who: Team,
  ref: string,
  tasks: unknown,
  extra: Record<string, unknown> = {},
) {
  const r = await h.call("POST", "/v1/evals", {
    token: who.token,
    body: { env: ref, split: "train", tasks, model: { name: "model-a", params: "1M" }, ...extra },
  });
  if (r.status !== 201) throw new Error(`run: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string; tasks: number[]; contentHash: string; version: string };
}

async function session(who: Team, runId: string, index: number) {
  return hub.call("POST", `/v1/evals/${runId}/sessions`, { token: who.token, body: { index } });
}

async function upload(
  who: Team,
  runId: string,
  episodes: { episodeId: string; receipt: string; trajectory?: unknown }[],
) {
  return hub.call("POST", `/v1/evals/${runId}/episodes`, { token: who.token, body: { episodes } });
}

/** The env token inside a hub handle: only the hub (and these tests, holding its secret) can open it. */
const envToken = async (handle: string) => (await openHandle(handle, env, Date.now())).token;

const claimsOf = (jws: string): ReceiptClaims =>
  JSON.parse(atob((jws.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/")));

describe("evaluation runs", () => {
  it("runs a fixed task set end to end; missing tasks count as failures", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const base = `/v1/envs/${ref}`;
    const run = await newRun(hub, a, ref, { count: 4 });
    expect(run.tasks).toEqual([0, 1, 2, 3]);
    const starts: { session: string; episodeId: string }[] = [];
    for (const i of [0, 1, 2]) {
      const s = await session(a, run.id, i);
      expect(s.status).toBe(201);
      expect(s.body.task).toEqual({ split: "train", index: i });
      starts.push(s.body);
    }
    const [s0, s1, s2] = starts as [(typeof starts)[0], (typeof starts)[0], (typeof starts)[0]];
    const again = await session(a, run.id, 1);
    expect(again.status).toBe(200);
    expect(again.body.episodeId).toBe(s1.episodeId);
    expect(again.body.observation).toEqual((s1 as unknown as { observation: unknown }).observation);
    // The client gets hub handles; the env's own token never appears in the reply.
    const inner = await envToken(s1.session);
    expect(s1.session.startsWith("egev.")).toBe(true);
    expect(JSON.stringify(again.body)).not.toContain(inner);
    // Handles step through the gateway, or through the run at /v1/evals/{id}/v1/step.
    const played = [
      await playEpisode(hub, a.token, base, s0.session, true, envToken),
      await playEpisode(hub, a.token, base, s1.session, true, envToken),
      await playEpisode(hub, a.token, `/v1/evals/${run.id}`, s2.session, false),
    ];
    const up = await upload(
      a,
      run.id,
      played.map((p, i) => ({
        episodeId: [s0, s1, s2][i]?.episodeId ?? "",
        receipt: p.receipt,
        trajectory: [{ step: i }],
      })),
    );
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true, true]);

    const fin = await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    expect(fin.status).toBe(200);
    expect(fin.body.status).toBe("finished");
    // Returns r = [p0, p1, p2, 0 (task 3 never reported: the env's minimum reward, 0)], n = 4.
    const [p0, p1, p2] = played.map((p) => p.return) as [number, number, number];
    const r = [p0, p1, p2, 0];
    const mean = (p0 + p1 + p2 + 0) / 4;
    const stderr = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / 3) / 2;
    expect(played.map((p) => p.reward > 0)).toEqual([true, true, false]);
    expect(fin.body.aggregate).toMatchObject({ n: 4, verified: 3, successRate: 2 / 4 });
    expect(fin.body.aggregate.meanReturn).toBeCloseTo(mean, 12);
    expect(fin.body.aggregate.stderr).toBeCloseTo(stderr, 12);
    expect(fin.body.aggregate.meanSteps).toBeCloseTo(played.reduce((s, p) => s + p.steps, 0) / 3, 12);

    // Finished runs take no more sessions or episodes, and finishing again changes nothing.
    expect((await session(a, run.id, 3)).status).toBe(409);
    expect((await upload(a, run.id, [{ episodeId: "x", receipt: played[0]?.receipt ?? "" }])).status).toBe(
      409,
    );
    const again2 = await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    expect(again2.body.aggregate).toEqual(fin.body.aggregate);
    const read = await hub.call("GET", `/v1/evals/${run.id}`, { token: a.token });
    expect(read.body).toEqual(fin.body);
  });

  it("rejects forged, foreign, replayed, cross-run and self-started receipts item by item", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const base = `/v1/envs/${ref}`;
    const run = await newRun(hub, a, ref, { count: 2 });
    const other = await newRun(hub, a, ref, { count: 2 });
    const s0 = (await session(a, run.id, 0)).body;
    const good = await playEpisode(hub, a.token, base, s0.session, true, envToken);
    const claims = claimsOf(good.receipt);

    // Signed by a key that is not the env's.
    const stranger = await importSigningJwk(await generateSigningJwk());
    const forged = await signReceipt({ ...claims, return: 99, finalReward: 1 }, stranger);
    // The env's own key, but claims for another split or content: what a different env version would sign.
    const envKey = await importSigningJwk(JSON.parse(env.EDGEGYM_SIGNING_KEY));
    const otherSplit = await signReceipt({ ...claims, task: { split: "test", index: 0 } }, envKey);
    const otherContent = await signReceipt({ ...claims, contentHash: `sha256:${"0".repeat(64)}` }, envKey);
    // Tampered payload under the original signature.
    const [h, , sig] = good.receipt.split(".");
    const tampered = `${h}.${btoa(JSON.stringify({ ...claims, return: 5 })).replace(/=+$/, "")}.${sig}`;
    // An episode the client started itself, outside the run.
    const own = (await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 1 } })).body;
    const selfStarted = await playEpisode(hub, a.token, base, own.session, true);
    // A session issued to the other run.
    const o0 = (await session(a, other.id, 0)).body;
    const crossRun = await playEpisode(hub, a.token, base, o0.session, true, envToken);

    const up = await upload(a, run.id, [
      { episodeId: s0.episodeId, receipt: forged },
      { episodeId: s0.episodeId, receipt: otherSplit },
      { episodeId: s0.episodeId, receipt: otherContent },
      { episodeId: s0.episodeId, receipt: tampered },
      { episodeId: own.episodeId, receipt: selfStarted.receipt },
      { episodeId: o0.episodeId, receipt: crossRun.receipt },
      { episodeId: "wrong-id", receipt: good.receipt },
      { episodeId: s0.episodeId, receipt: good.receipt },
      { episodeId: s0.episodeId, receipt: good.receipt },
    ]);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const res = up.body.results as { ok: boolean; error?: { code: string; detail: string } }[];
    expect(res.map((r) => r.ok)).toEqual([false, false, false, false, false, false, false, true, false]);
    expect(res.slice(0, 7).every((r) => r.error?.code === "invalid_receipt")).toBe(true);
    expect(res[0]?.error?.detail).toMatch(/signature/);
    expect(res[1]?.error?.detail).toMatch(/split test/);
    expect(res[2]?.error?.detail).toMatch(/contentHash/);
    expect(res[4]?.error?.detail).toMatch(/not issued to this run/);
    expect(res[5]?.error?.detail).toMatch(/not issued to this run/);
    expect(res[8]?.error?.code).toBe("conflict");
    // Replaying later is also a duplicate.
    const replay = await upload(a, run.id, [{ episodeId: s0.episodeId, receipt: good.receipt }]);
    expect(replay.body.results[0].error.code).toBe("conflict");
    const big = await upload(a, run.id, [
      { episodeId: o0.episodeId, receipt: crossRun.receipt, trajectory: "x".repeat(70_000) },
    ]);
    expect(big.body.results[0].ok).toBe(false);
    // Only the one verified episode counts; the other task is a failure.
    const fin = await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    expect(fin.body.aggregate).toMatchObject({ n: 2, verified: 1, successRate: 1 / 2 });
  });

  it("the success rate is the receipts' success claim; a receipt without one counts a positive final reward", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const base = `/v1/envs/${ref}`;
    const run = await newRun(hub, a, ref, { count: 3 });
    const envKey = await importSigningJwk(JSON.parse(env.EDGEGYM_SIGNING_KEY));
    const uploads: { episodeId: string; receipt: string }[] = [];
    for (const i of [0, 1, 2]) {
      const s = (await session(a, run.id, i)).body;
      const played = await playEpisode(hub, a.token, base, s.session, true, envToken);
      const claims = claimsOf(played.receipt);
      // The env reports the expert's episode solved, with final reward 1.
      expect([claims.finalReward, claims.success]).toEqual([1, true]);
      const { success: _, ...old } = claims;
      // Task 0: the env's receipt. Task 1: the env's key says final reward 1 but not solved. Task 2:
      // a receipt signed before the claim existed.
      const receipt = [
        played.receipt,
        await signReceipt({ ...claims, success: false }, envKey),
        await signReceipt(old, envKey),
      ][i];
      uploads.push({ episodeId: s.episodeId, receipt: receipt ?? "" });
    }
    const up = await upload(a, run.id, uploads);
    expect(up.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true, true]);
    const fin = await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    // Successes: task 0 (claim true) and task 2 (no claim, final reward 1 > 0) of 3; task 1's claim is
    // false although its final reward is 1, so `finalReward > 0` alone would give 3/3.
    expect(fin.body.aggregate).toMatchObject({ n: 3, verified: 3, successRate: 2 / 3 });
  });

  it("cherry-picking can't help: one session per task, first receipt wins, dropped tasks fail", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const base = `/v1/envs/${ref}`;
    const run = await newRun(hub, a, ref, { indices: [5, 7, 7, 9] });
    expect(run.tasks).toEqual([5, 7, 9]);
    const s = (await session(a, run.id, 5)).body;
    const bad = await playEpisode(hub, a.token, base, s.session, false);
    expect(
      (await upload(a, run.id, [{ episodeId: s.episodeId, receipt: bad.receipt }])).body.results[0].ok,
    ).toBe(true);
    // Asking for the task again returns the same episode, whose first step is already taken.
    const retry = (await session(a, run.id, 5)).body;
    expect(retry.episodeId).toBe(s.episodeId);
    const again = await hub.call("POST", `${base}/v1/step`, {
      token: a.token,
      body: { session: retry.session, action: { content: "#### 1" } },
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/cannot be forked/);
    // Even a better receipt from a self-started episode (the hub never saw it) is refused.
    const own = (await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 5 } })).body;
    const lucky = await playEpisode(hub, a.token, base, own.session, true);
    expect(
      (await upload(a, run.id, [{ episodeId: s.episodeId, receipt: lucky.receipt }])).body.results[0].ok,
    ).toBe(false);
    const fin = await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    // Tasks 7 and 9 were never reported: 3 tasks, 0 successes, mean return (0 + 0 + 0) / 3 = 0.
    expect(fin.body.aggregate).toMatchObject({ n: 3, verified: 1, successRate: 0, meanReturn: 0 });
  });

  it("evaluation episodes can't be forked: each step of a handle is taken once", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const run = await newRun(hub, a, ref, { count: 2 });
    const other = await newRun(hub, a, ref, { count: 1 });
    const h0 = (await session(a, run.id, 0)).body.session as string;
    const step = (path: string, sess: string, action: unknown, token = a.token) =>
      hub.call("POST", path, { token, body: { session: sess, action } });
    const wrong = { content: "#### -987654321" };
    const expert = (
      await hub.call("POST", `/v1/envs/${ref}/v1/expert`, { body: { session: await envToken(h0) } })
    ).body.action;

    // Who may step: the run's team with `eval`; anyone else is refused before the step is claimed.
    expect((await step(`/v1/evals/${run.id}/step`, h0, wrong, "")).status).toBe(401);
    expect((await step(`/v1/evals/${run.id}/step`, h0, wrong, b.token)).status).toBe(404);
    const readOnly = (await newToken(hub, a.team, ["read"])).token;
    expect((await step(`/v1/evals/${run.id}/step`, h0, wrong, readOnly)).status).toBe(403);
    // Handles are bound to their run, can't be tampered with, and env tokens aren't handles.
    const cross = await step(`/v1/evals/${other.id}/step`, h0, wrong);
    expect([cross.status, cross.body.code]).toEqual([401, "invalid_session"]);
    const tampered = await step(`/v1/evals/${run.id}/step`, `${h0.slice(0, -4)}AAAA`, wrong);
    expect(tampered.body.code).toBe("invalid_session");
    expect((await step(`/v1/evals/${run.id}/step`, await envToken(h0), wrong)).body.code).toBe(
      "invalid_session",
    );

    const first = await step(`/v1/evals/${run.id}/step`, h0, expert);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.done).toBe(false);
    const h1 = first.body.session as string;
    expect(JSON.stringify(first.body)).not.toContain(await envToken(h1));
    // The same step again, by any route and with any action, is refused.
    for (const path of [
      `/v1/evals/${run.id}/step`,
      `/v1/evals/${run.id}/v1/step`,
      `/v1/envs/${ref}/v1/step`,
    ]) {
      const fork = await step(path, h0, wrong);
      expect([fork.status, fork.body.code], path).toEqual([409, "conflict"]);
      expect(fork.body.detail).toMatch(/evaluation episodes cannot be forked/);
    }
    // The next step goes on exactly once, even when two requests race for it (the D1 claim decides).
    const raced = await Promise.all([1, 2].map(() => step(`/v1/envs/${ref}/v1/step`, h1, wrong)));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
    const last = raced.find((r) => r.status === 200) ?? raced[0];
    expect(last?.body.done).toBe(true);
    expect((await step(`/v1/envs/${ref}/v1/step`, h1, expert)).status).toBe(409);
    // After the episode ends the env's refusal passes through and doesn't use the step up.
    for (let i = 0; i < 2; i++) {
      const after = await step(`/v1/evals/${run.id}/step`, last?.body.session, wrong);
      expect(after.body.code).toBe("episode_done");
    }
    const up = await upload(a, run.id, [
      { episodeId: claimsOf(last?.body.receipt).episodeId, receipt: last?.body.receipt },
    ]);
    expect(up.body.results[0].ok).toBe(true);
    // An ordinary gateway step whose action merely mentions the handle prefix still goes to the env.
    const own = (
      await hub.call("POST", `/v1/envs/${ref}/v1/sessions`, { body: { split: "train", index: 0 } })
    ).body;
    expect((await step(`/v1/envs/${ref}/v1/step`, own.session, { content: '"egev.x' }, "")).status).toBe(200);
    // A finished run takes no more steps.
    const h2 = (await session(a, run.id, 1)).body.session as string;
    await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: a.token });
    expect((await step(`/v1/evals/${run.id}/step`, h2, wrong)).status).toBe(409);
  });

  it("validates run creation and sessions", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name, ref } = await newEnv(hub, a);
    const make = (body: Record<string, unknown>) =>
      hub.call("POST", "/v1/evals", {
        token: a.token,
        body: { env: ref, split: "train", tasks: { count: 1 }, model: { name: "m" }, ...body },
      });
    expect((await make({ env: "no-version" })).status).toBe(422);
    expect((await make({ env: `${a.team}/missing@1.0.0` })).status).toBe(404);
    expect((await make({ env: `${a.team}/${name}@4.0.0` })).status).toBe(404);
    expect((await make({ split: "nope" })).body.code).toBe("unknown_split");
    expect((await make({ tasks: { indices: [10_000_000] } })).body.code).toBe("task_out_of_range");
    expect((await make({ tasks: { count: 0 } })).status).toBe(422);
    expect((await make({ model: {} })).status).toBe(422);
    const latest = await make({ env: `${a.team}/${name}@latest` });
    expect(latest.body.version).toBe("1.0.0");
    const run = latest.body as { id: string };
    expect((await session(a, run.id, 1)).body.code).toBe("task_out_of_range");
    expect((await session(b, run.id, 0)).status).toBe(404);
    expect((await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: b.token })).status).toBe(404);
    expect((await hub.call("GET", "/v1/evals/run_missing", { token: a.token })).status).toBe(404);
    await hub.call("POST", `/v1/envs/${a.team}/${name}/versions/1.0.0/yank`, { token: a.token });
    expect((await make({})).status).toBe(409);
  });
});

describe("visibility and leaderboards", () => {
  async function finishedRun(
    who: Team,
    ref: string,
    model: string,
    solve: boolean[],
    extra: Record<string, unknown>,
  ) {
    const run = await newRun(hub, who, ref, { count: solve.length }, { model: { name: model }, ...extra });
    const items = [];
    for (const [i, ok] of solve.entries()) {
      const s = (await session(who, run.id, i)).body;
      const p = await playEpisode(hub, who.token, `/v1/envs/${ref}`, s.session, ok, envToken);
      items.push({ episodeId: s.episodeId, receipt: p.receipt });
    }
    await upload(who, run.id, items);
    return (await hub.call("POST", `/v1/evals/${run.id}/finish`, { token: who.token })).body;
  }

  it("ranks the best finished run per model, with contentHash and a minimum task count", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name, ref } = await newEnv(hub, a);
    const r1 = await finishedRun(a, ref, "alpha", [true, false], { public: true });
    const r2 = await finishedRun(a, ref, "alpha", [true, true], { public: true });
    const r3 = await finishedRun(b, ref, "beta", [false, true], { public: true });
    await finishedRun(b, ref, "gamma", [true], { public: true });
    const priv = await finishedRun(b, ref, "delta", [true, true], {});
    const path = `/v1/envs/${a.team}/${name}/leaderboard?split=train&minTasks=2`;
    const anon = await hub.call("GET", path);
    expect(anon.status).toBe(200);
    expect(anon.body.entries.map((e: { model: string; runId: string }) => [e.model, e.runId])).toEqual([
      ["alpha", r2.id],
      ["beta", r3.id],
    ]);
    expect(r1.aggregate.successRate).toBe(0.5);
    expect(anon.body.entries[0]).toMatchObject({
      rank: 1,
      contentHash: r2.contentHash,
      n: 2,
      successRate: 1,
    });
    // Team b also sees its own unpublished run; nobody else does.
    const mine = await hub.call("GET", path, { token: b.token });
    expect(mine.body.entries.map((e: { model: string }) => e.model)).toContain("delta");
    expect((await hub.call("GET", `/v1/evals/${priv.id}`)).status).toBe(404);
    expect((await hub.call("GET", `/v1/evals/${priv.id}`, { token: a.token })).status).toBe(404);
    expect((await hub.call("GET", `/v1/evals/${r3.id}`)).status).toBe(200);
    const list = await hub.call("GET", `/v1/evals?env=${a.team}/${name}`);
    expect(list.body.runs.map((r: { id: string }) => r.id)).not.toContain(priv.id);
    expect(list.body.runs).toHaveLength(4);
    const page = await hub.call("GET", `/v1/evals?env=${a.team}/${name}&limit=3`);
    const rest = await hub.call(
      "GET",
      `/v1/evals?env=${a.team}/${name}&limit=3&cursor=${page.body.nextCursor}`,
    );
    expect([...page.body.runs, ...rest.body.runs].map((r: { id: string }) => r.id)).toEqual(
      list.body.runs.map((r: { id: string }) => r.id),
    );
    // The default minimum (10 tasks) keeps these small runs off the board.
    const strict = await hub.call("GET", `/v1/envs/${a.team}/${name}/leaderboard?split=train`);
    expect(strict.body.entries).toEqual([]);
  });

  it("a private env's runs and leaderboard never leak, even when marked public", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name, ref } = await newEnv(hub, a, { visibility: "private" });
    const run = await finishedRun(a, ref, "secret-model", [true], { public: true });
    for (const token of [undefined, b.token]) {
      expect((await hub.call("GET", `/v1/evals/${run.id}`, { token })).status).toBe(404);
      expect((await hub.call("GET", `/v1/evals?env=${a.team}/${name}`, { token })).status).toBe(404);
      expect(
        (await hub.call("GET", `/v1/envs/${a.team}/${name}/leaderboard?split=train&minTasks=1`, { token }))
          .status,
      ).toBe(404);
      const create = await hub.call("POST", "/v1/evals", {
        token: token ?? "",
        body: { env: ref, split: "train", tasks: { count: 1 }, model: { name: "m" } },
      });
      expect([401, 404]).toContain(create.status);
    }
    const board = await hub.call("GET", `/v1/envs/${a.team}/${name}/leaderboard?split=train&minTasks=1`, {
      token: a.token,
    });
    expect(board.body.entries.map((e: { model: string }) => e.model)).toEqual(["secret-model"]);
  });
});
