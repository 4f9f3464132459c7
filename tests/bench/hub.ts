/**
 * `npm run bench:hub`: the hub on workerd (`wrangler dev`, local D1 in a temp dir) seeded with 10,000
 * public envs. Prints JSON: list and search latency (p50/p99), gateway overhead per step against calling
 * the built-in env directly, verified-episode ingestion rate, and cold start and step latency of a
 * hosted env against a built-in and a URL env on Node. Client and server share this machine.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { scriptArgs } from "../../shared/script-args.js";
import { hostedLatency } from "./hub-hosted.js";

const USAGE = `Usage: npm run bench:hub -- [options]

The hub on workerd seeded with public envs: list and search latency, gateway overhead per step and
verified-episode ingestion rate, printed as JSON.

Options:
  --envs <count>       public envs seeded (default 10000)
  --requests <count>   list and search requests timed (default 300)
  --episodes <count>   verified episodes ingested (default 512)
  --hosted <count>     versions published per kind for hosted cold starts (default 5)
  -h, --help           this text`;
const args = scriptArgs("bench:hub", USAGE, {
  envs: { type: "string", default: "10000" },
  requests: { type: "string", default: "300" },
  episodes: { type: "string", default: "512" },
  hosted: { type: "string", default: "5" },
});
const ENVS = args.number("envs");
const REQUESTS = args.number("requests");
const EPISODES = args.number("episodes");
const WORDS = [
  "math",
  "search",
  "code",
  "shop",
  "maze",
  "chess",
  "poker",
  "sql",
  "web",
  "robot",
  "quiz",
  "logic",
];

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

const dir = mkdtempSync(join(tmpdir(), "edgegym-bench-hub-"));
const bootstrap = randomBytes(32).toString("base64url");
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;

function wrangler(args: string[]): void {
  const r = spawnSync("npx", ["wrangler", ...args, "--persist-to", dir], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed`);
}

/** 10,000 envs in multi-row inserts; the FTS5 triggers index them as they are inserted. */
function seedSql(): string {
  const lines = ["insert into hub_teams (name, created_at) values ('bench', 0);"];
  const rows: string[] = [];
  for (let i = 0; i < ENVS; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 5) % WORDS.length];
    rows.push(
      `('bench', 'env-${i}', 'public', '${w(0)} ${w(1)} environment number ${i}', '${w(2)}', '', ${i}, ${i})`,
    );
  }
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500).join(",\n");
    lines.push(
      `insert into hub_envs (owner, name, visibility, description, tags, readme, created_at, updated_at) values\n${chunk};`,
    );
  }
  return lines.join("\n");
}

async function call(method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(origin + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads a few known fields of hub replies
  const json = (await res.json()) as Record<string, any>;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const quantiles = (values: number[]) => {
  const ms = [...values].sort((a, b) => a - b);
  const q = (p: number) => Number((ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0).toFixed(3));
  return { n: ms.length, p50Ms: q(0.5), p99Ms: q(0.99) };
};

async function once(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function timed(n: number, f: (i: number) => Promise<unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push(await once(() => f(i)));
  return quantiles(ms);
}

async function token(team: string, scopes: string[]): Promise<string> {
  return (await call("POST", `/v1/teams/${team}/tokens`, bootstrap, { scopes })).token;
}

wrangler(["d1", "migrations", "apply", "edgegym", "--local"]);
const seed = join(dir, "seed.sql");
writeFileSync(seed, seedSql());
wrangler(["d1", "execute", "edgegym", "--local", "--file", seed]);
const child = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    "--var",
    `HUB_ADMIN_TOKEN:${bootstrap}`,
    // The URL env of the hosted comparison runs on this machine.
    "--var",
    "HUB_ALLOW_PRIVATE_UPSTREAMS:true",
    "--persist-to",
    dir,
  ],
  { stdio: ["ignore", "ignore", "inherit"], detached: true },
);
try {
  for (let i = 0; ; i++) {
    if (i > 600) throw new Error("hub did not start");
    if (
      await fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await call("POST", "/v1/teams", bootstrap, { name: "bench-user" });
  // Each phase gets its own token: the hub's limiter allows 1,200 requests a minute per token.
  const reader = await token("bench-user", ["read"]);
  await call("GET", "/v1/envs?limit=1", reader);
  const list = await timed(REQUESTS, (i) =>
    call("GET", `/v1/envs?limit=20&cursor=${(i * 31) % ENVS}`, reader),
  );
  const searcher = await token("bench-user", ["read"]);
  const search = await timed(REQUESTS, (i) =>
    call("GET", `/v1/envs?limit=20&q=${WORDS[i % WORDS.length]}`, searcher),
  );

  const owner = await token("bench", ["publish", "eval", "read"]);
  await call("POST", "/v1/envs/bench/env-0/versions", owner, { version: "1.0.0", builtin: "calculator" });
  const start = await call("POST", "/envs/calculator/v1/sessions", undefined, { split: "train", index: 0 });
  const step = { session: start.session, action: { content: "#### 1" } };
  const stepper = await token("bench-user", ["read"]);
  // Interleaved, so load from other processes hits the three paths alike; overhead is the median of
  // per-iteration differences against the direct call just before.
  const direct: number[] = [];
  const viaToken: number[] = [];
  const viaAnonymous: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    direct.push(await once(() => call("POST", "/envs/calculator/v1/step", undefined, step)));
    viaToken.push(await once(() => call("POST", "/v1/envs/bench/env-0@1.0.0/v1/step", stepper, step)));
    viaAnonymous.push(await once(() => call("POST", "/v1/envs/bench/env-0@1.0.0/v1/step", undefined, step)));
  }
  const overhead = (via: number[]) => quantiles(via.map((v, i) => v - (direct[i] ?? 0))).p50Ms;

  const run = await call("POST", "/v1/evals", owner, {
    env: "bench/env-0@1.0.0",
    split: "train",
    tasks: { count: EPISODES },
    model: { name: "bench" },
  });
  const items = [];
  for (let i = 0; i < EPISODES; i++) {
    const s = await call("POST", `/v1/evals/${run.id}/sessions`, owner, { index: i });
    const done = await call("POST", `/v1/evals/${run.id}/step`, owner, {
      session: s.session,
      action: { content: "#### 1" },
    });
    items.push({ episodeId: s.episodeId, receipt: done.receipt });
  }
  const t0 = performance.now();
  let accepted = 0;
  for (let i = 0; i < items.length; i += 256) {
    const r = await call("POST", `/v1/evals/${run.id}/episodes`, owner, {
      episodes: items.slice(i, i + 256),
    });
    accepted += r.results.filter((x: { ok: boolean }) => x.ok).length;
  }
  const seconds = (performance.now() - t0) / 1000;
  const hosted = await hostedLatency({
    call,
    quantiles,
    owner: await token("bench", ["publish", "read"]),
    envs: { builtin: "env-1", hosted: "env-2", url: "env-3" },
    versions: args.number("hosted"),
    requests: REQUESTS,
  });
  console.log(
    JSON.stringify(
      {
        benchmark: "hub on workerd (wrangler dev, local D1), sequential requests from one client",
        cpus: cpus().length,
        envs: ENVS,
        list,
        search,
        step: {
          direct: quantiles(direct),
          gateway: quantiles(viaToken),
          gatewayAnonymous: quantiles(viaAnonymous),
          overheadP50Ms: overhead(viaToken),
          anonymousOverheadP50Ms: overhead(viaAnonymous),
          targetOverheadP50Ms: 2,
        },
        ingestion: {
          episodes: accepted,
          batch: 256,
          seconds: Number(seconds.toFixed(3)),
          episodesPerSecond: Math.round(accepted / seconds),
        },
        hosted,
      },
      null,
      2,
    ),
  );
} finally {
  if (child.pid) process.kill(-child.pid, "SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
