import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { formatEvalTable } from "../eval/config.js";
import { HubEvalRun } from "../eval/hub-eval.js";
import type { LocalHub } from "../pipeline/local-hub.js";
import type { Trajectory } from "../rollout/types.js";
import { startTestHub } from "../testing/test-hub.js";
import { registerHub } from "./hub-commands.js";

let hub: LocalHub;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  hub = await startTestHub("cli");
  dir = await mkdtemp(join(tmpdir(), "edgegym-cli-"));
  // Nothing from the developer's own login or shell may leak into these runs.
  process.env.XDG_CONFIG_HOME = dir;
  for (const k of ["EDGEGYM_TOKEN", "EDGEGYM_HUB_URL", "HUB_ADMIN_TOKEN"]) delete process.env[k];
}, 240_000);

afterAll(async () => {
  process.env = saved;
  await hub?.stop();
});

/** Runs `edgegym <args>` in this process against the test hub; what it printed and its exit code. */
async function cli(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command().exitOverride();
  registerHub(program);
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a) => void err.push(a.join(" ")));
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "edgegym", ...args, "--hub", hub.url]);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { out: out.join("\n"), err: err.join("\n"), code };
}

/** A JSON call to the test hub with the team edgegym's admin token. */
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(hub.url + path, {
    method,
    headers: { authorization: `Bearer ${hub.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

describe("edgegym's hub commands against a real local hub", () => {
  it("show the hub's problem detail with its issues list, on one line, exit code 2", async () => {
    const r = await cli(
      "tokens",
      "create",
      "--team",
      "edgegym",
      "--scopes",
      "read,fly",
      "--token",
      hub.token,
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^edgegym: the request does not match the schema \(invalid_request\): scopes\.1: /);
    expect(r.err.split("\n")).toHaveLength(1);

    const v = await cli(
      "publish",
      "edgegym/cli-bad",
      "--version",
      "one",
      "--builtin",
      "calculator",
      "--token",
      hub.token,
    );
    expect(v.code).toBe(2);
    expect(v.err).toMatch(/\(invalid_request\): version: /);
  });

  it("refuse to publish a version with 0 tasks in every split, quoting the env's import command", async () => {
    const r = await cli(
      "publish",
      "edgegym/cli-gsm8k",
      "--version",
      "1.0.0",
      "--builtin",
      "calculator-gsm8k",
      "--token",
      hub.token,
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain("has 0 tasks in every split (train 0, test 0)");
    expect(r.err).toContain('dataset "gsm8k" has not been imported; run: npm run data -- import gsm8k');
  });

  it("create a team with the bootstrap secret from a file, and its first token with only the secret on stdout", async () => {
    const plain = join(dir, "bootstrap");
    await writeFile(plain, `${hub.bootstrap}\n`, { mode: 0o600 });
    const json = join(dir, "hub-local.json");
    await writeFile(json, JSON.stringify({ bootstrap: hub.bootstrap, token: "egh_other" }), { mode: 0o600 });

    expect(await cli("teams", "create", "cli-team")).toMatchObject({
      code: 2,
      err: expect.stringContaining("set HUB_ADMIN_TOKEN or pass --bootstrap-file"),
    });
    const created = await cli("teams", "create", "cli-team", "--bootstrap-file", plain);
    expect([created.code, created.out]).toEqual([0, expect.stringMatching(/^created team cli-team;/)]);
    const again = await cli("teams", "create", "cli-team", "--bootstrap-file", json);
    expect([again.code, again.err]).toEqual([2, "edgegym: team cli-team already exists (conflict)"]);

    const t = await cli(
      "tokens",
      "create",
      "--team",
      "cli-team",
      "--scopes",
      "read",
      "--expires",
      "90d",
      "--bootstrap-file",
      json,
    );
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/^egh_[A-Za-z0-9_-]+$/);
    expect(t.err).toMatch(/token tok_\S+ for cli-team \(read, expires \d{4}-/);
    const who = await fetch(`${hub.url}/v1/envs?limit=1`, { headers: { authorization: `Bearer ${t.out}` } });
    expect(who.status).toBe(200);
  });

  it("change visibility with envs update and with publish on an existing env, instead of ignoring it", async () => {
    const first = await cli(
      "publish",
      "edgegym/cli-vis",
      "--version",
      "1.0.0",
      "--builtin",
      "calculator",
      "--visibility",
      "public",
      "--token",
      hub.token,
    );
    expect(first.code).toBe(0);
    const pub = await api<{ visibility: string }>("GET", "/v1/envs/edgegym/cli-vis");
    expect(pub.visibility).toBe("public");

    const second = await cli(
      "publish",
      "edgegym/cli-vis",
      "--version",
      "1.0.1",
      "--builtin",
      "calculator",
      "--visibility",
      "private",
      "--token",
      hub.token,
    );
    expect(second.out).toContain("updated edgegym/cli-vis: visibility private");
    expect((await api<{ visibility: string }>("GET", "/v1/envs/edgegym/cli-vis")).visibility).toBe("private");

    const upd = await cli(
      "envs",
      "update",
      "edgegym/cli-vis",
      "--visibility",
      "public",
      "--description",
      "shared calc",
      "--token",
      hub.token,
    );
    expect(upd.out).toBe('updated edgegym/cli-vis: visibility public, description "shared calc"');
    expect(await api("GET", "/v1/envs/edgegym/cli-vis")).toMatchObject({
      visibility: "public",
      description: "shared calc",
    });
    const none = await cli("envs", "update", "edgegym/cli-vis", "--token", hub.token);
    expect(none).toMatchObject({
      code: 2,
      err: "edgegym: envs update: give --visibility, --description or --tags",
    });
  });

  it("print the leaderboard and the evaluation runs", async () => {
    // A run over 10 tasks (the leaderboard's floor) with one verified episode, answered "#### 0".
    const run = await api<{ id: string }>("POST", "/v1/evals", {
      env: "edgegym/calculator@1.0.0",
      split: "test",
      tasks: { count: 10 },
      model: { name: "cli-demo" },
    });
    const s = await api<{ session: string; episodeId: string }>("POST", `/v1/evals/${run.id}/sessions`, {
      index: 0,
    });
    const step = await api<{ receipt: string }>("POST", "/v1/envs/edgegym/calculator@1.0.0/v1/step", {
      session: s.session,
      action: { content: "#### 0" },
    });
    await api("POST", `/v1/evals/${run.id}/episodes`, {
      episodes: [{ episodeId: s.episodeId, receipt: step.receipt }],
    });
    const done = await api<{ aggregate: { successRate: number } }>("POST", `/v1/evals/${run.id}/finish`);

    const board = await cli("leaderboard", "edgegym/calculator@1.0.0", "--token", hub.token);
    expect(board.code).toBe(0);
    const row = board.out.split("\n").find((l) => l.includes("cli-demo"));
    // n = 10 tasks, 1 verified; the success rate is the hub's own aggregate, printed with 3 decimals.
    expect(row?.split(/\s+/)).toEqual([
      "1",
      "cli-demo",
      done.aggregate.successRate.toFixed(3),
      expect.any(String),
      expect.any(String),
      "10",
      "1",
      "edgegym",
      run.id,
    ]);

    const list = await cli("evals", "list", "edgegym/calculator", "--token", hub.token);
    expect(list.out).toMatch(
      new RegExp(`${run.id}\\s+edgegym/calculator@1\\.0\\.0\\s+test\\s+cli-demo\\s+finished\\s+10 tasks`),
    );
    const show = await cli("evals", "show", run.id, "--token", hub.token);
    expect(show.out).toMatch(/verified episodes 1 of 10 tasks/);
    const missing = await cli("evals", "show", "run_nope", "--token", hub.token);
    expect(missing).toMatchObject({ code: 2, err: expect.stringMatching(/\(not_found\)$/) });
  });

  it("eval --upload's run reports why the hub rejected receipts", async () => {
    const created = await HubEvalRun.create(
      { url: hub.url, token: hub.token },
      {
        env: "edgegym/calculator@1.0.0",
        split: "test",
        tasks: { count: 2 },
        model: { name: "cli-rejected" },
      },
    );
    if (!created.ok) throw new Error(created.error);
    // Two episodes the hub never issued to this run, with receipts that are not even signed.
    const forged = (episodeId: string) =>
      ({
        episodeId,
        steps: [{ receipt: "e30.e30.c2ln", action: "#### 0", reward: 0, done: true }],
      }) as unknown as Trajectory;
    const up = await created.value.upload([forged("ep_a"), forged("ep_b")]);
    if (!up.ok) throw new Error(up.error);
    expect(up.value).toMatchObject({ accepted: 0, rejected: 2 });
    expect(up.value.rejections).toEqual([expect.stringMatching(/^2 × invalid_receipt: receipt rejected: /)]);
    // `edgegym eval --upload` prints the reasons under the count in its table.
    const summary = { env: "hub://edgegym/calculator@1.0.0", policy: "p", split: "test", episodes: 2 };
    const table = formatEvalTable({
      ...summary,
      success: 0,
      reward: 0,
      steps: 1,
      toolCalls: 0,
      infraFailures: 0,
      failures: [],
      hub: { run: created.value.id, ...up.value, verified: 0, successRate: 0 },
    });
    expect(table).toMatch(
      /receipts accepted +0 \(rejected 2\)\n +rejected: 2 × invalid_receipt: receipt rejected: /,
    );
  });
});
