import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DEV_VARS_PATH } from "../../environments/node/local-keys.js";
import { scriptArgs } from "../../shared/script-args.js";
import { hubClient } from "../client.js";
import {
  devArgs,
  hubEnvFiles,
  migrateArgs,
  migrationsLine,
  secretEnvFile,
  WRANGLER_BIN,
  wranglerEnv,
} from "./wrangler.js";

/**
 * `npm run dev`: applies the D1 migrations locally, starts `wrangler dev` with the hub, and on first
 * start creates the team `edgegym` with an admin token (printed, and kept in the git-ignored
 * `.edgegym/hub-local.json`, or `hub-local-<hash of the --persist-to dir>.json`), then publishes every built-in env as a public env of `edgegym`.
 * `HUB_ADMIN_TOKEN` from the environment is used as the bootstrap secret instead of the stored one,
 * and `HUB_RATE_LIMIT_REQUESTS` sets the hub's rate limit (hub/rate-limit.ts).
 * wrangler gets the secret in a private env file (not on its command line, where `ps` shows it), runs
 * without telemetry or update checks, and its migration tables are summed up in one line.
 */
const TEAM = "edgegym";
/** Deadline of each call to the local hub while bootstrapping (a first dataset load can take a while). */
const CALL_TIMEOUT_MS = 60_000;

type Local = { bootstrap: string; url?: string; team?: string; token?: string; tokenId?: string };

const USAGE = `Usage: npm run dev -- [options]

Applies the D1 migrations, starts the hub in wrangler dev, and on first start creates the team
edgegym with an admin token and publishes the built-in envs.

Options:
  --port <n>           the hub's port (default 8787)
  --persist-to <dir>   wrangler's local state folder (D1, KV); each folder has its own token
  -h, --help           this text`;
const args = scriptArgs("dev", USAGE, {
  port: { type: "string", default: "8787" },
  "persist-to": { type: "string" },
});
const { values } = args;
const port = args.number("port");
const url = `http://localhost:${port}`;
/** One file per local database: hubs persisted elsewhere (`--persist-to`) have their own tokens. */
const LOCAL_FILE = resolve(
  import.meta.dirname,
  "../../.edgegym",
  values["persist-to"]
    ? `hub-local-${createHash("sha256").update(resolve(values["persist-to"])).digest("hex").slice(0, 8)}.json`
    : "hub-local.json",
);

function readLocal(): Local {
  const stored: Partial<Local> = existsSync(LOCAL_FILE) ? JSON.parse(readFileSync(LOCAL_FILE, "utf8")) : {};
  return {
    ...stored,
    bootstrap: process.env.HUB_ADMIN_TOKEN ?? stored.bootstrap ?? randomBytes(32).toString("base64url"),
  };
}

function writeLocal(local: Local): void {
  mkdirSync(dirname(LOCAL_FILE), { recursive: true });
  writeFileSync(LOCAL_FILE, `${JSON.stringify(local, null, 2)}\n`, { mode: 0o600 });
}

/** The hub's typed client with `token`; each call has the bootstrap deadline. */
const api = (token: string) => hubClient({ url, token }, CALL_TIMEOUT_MS);

/** A reply's status and JSON body (a problem, for refusals), as the steps below judge them. */
async function reply(res: Response): Promise<{ status: number; body: Record<string, unknown> | null }> {
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function waitForHub(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error("wrangler dev exited");
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the hub did not answer at ${url}/healthz`);
}

/** Creates the first team and its admin token once; later starts reuse the stored token. */
async function bootstrap(local: Local): Promise<Local> {
  const team = await reply(await api(local.bootstrap).v1.teams.$post({ json: { name: TEAM } }));
  if (team.status !== 201 && team.status !== 409)
    throw new Error(`creating team: ${JSON.stringify(team.body)}`);
  if (local.token && (await api(local.token).v1.envs.$get({ query: { limit: "1" } })).status === 200)
    return local;
  const scopes = ["read", "publish", "eval", "admin"] as const;
  const tokens = api(local.bootstrap).v1.teams[":team"].tokens;
  const tok = await reply(await tokens.$post({ param: { team: TEAM }, json: { scopes: [...scopes] } }));
  if (tok.status !== 201) throw new Error(`creating token: ${JSON.stringify(tok.body)}`);
  const next = { ...local, url, team: TEAM, token: String(tok.body?.token), tokenId: String(tok.body?.id) };
  console.log(
    `hub: first team "${TEAM}" with admin token (shown once, kept in ${LOCAL_FILE}):\n  ${next.token}`,
  );
  return next;
}

/** Publishes each built-in env as the public `edgegym/<name>`; repeats are conflicts and are skipped. */
async function publishBuiltins(token: string): Promise<void> {
  const signal = () => AbortSignal.timeout(CALL_TIMEOUT_MS);
  const index = (await (await fetch(`${url}/envs`, { signal: signal() })).json()) as {
    environments: { name: string; version: string }[];
  };
  for (const { name, version } of index.environments) {
    const manifest = (await (
      await fetch(`${url}/envs/${name}/v1/manifest`, { signal: signal() })
    ).json()) as {
      description?: string;
    };
    const body = {
      owner: TEAM,
      name,
      visibility: "public" as const,
      description: manifest.description ?? "",
      tags: ["builtin"],
    };
    const hub = api(token).v1.envs;
    const env = await reply(await hub.$post({ json: body }));
    const v = await reply(
      await hub[":owner"][":name"].versions.$post({
        param: { owner: TEAM, name },
        json: { version, builtin: name },
      }),
    );
    const fresh = env.status === 201 || v.status === 201;
    // An env whose data is not imported has no tasks and is refused; the hub's detail says how to import.
    if (v.status !== 201 && v.status !== 409) {
      const detail = String(v.body?.detail ?? JSON.stringify(v.body));
      // For a refused empty version, the env's own words (which command imports its data) are enough.
      const envSays = detail.split("; the environment says: ")[1];
      console.error(
        `hub: ${TEAM}/${name}@${version} not published, ${envSays ? `no tasks: ${envSays}` : detail}`,
      );
    } else console.log(`hub: ${TEAM}/${name}@${version} ${fresh ? "published" : "already published"}`);
  }
}

const local = readLocal();
writeLocal(local);
const env = wranglerEnv(process.env);
const migrate = spawnSync(WRANGLER_BIN, migrateArgs(values["persist-to"]), { env, encoding: "utf8" });
const migrateOutput = `${migrate.stdout ?? ""}${migrate.stderr ?? ""}`;
if (migrate.status !== 0) {
  process.stderr.write(migrateOutput);
  process.exit(migrate.status ?? 1);
}
console.log(migrationsLine(migrateOutput));
// A local hub publishes envs served on this machine (`npm run envs`); a deployed hub refuses them.
// HUB_RATE_LIMIT_REQUESTS from the environment reaches the hub too (`npm start`'s own hub sets 0).
const limit = process.env.HUB_RATE_LIMIT_REQUESTS;
const secrets = secretEnvFile({
  HUB_ADMIN_TOKEN: local.bootstrap,
  HUB_ALLOW_PRIVATE_UPSTREAMS: "true",
  ...(limit === undefined ? {} : { HUB_RATE_LIMIT_REQUESTS: limit }),
});
process.on("exit", secrets.remove);
const child = spawn(
  WRANGLER_BIN,
  devArgs(port, hubEnvFiles(DEV_VARS_PATH, secrets.path), values["persist-to"]),
  { stdio: "inherit", env },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
await waitForHub(child);
const ready = await bootstrap(local);
writeLocal(ready);
await publishBuiltins(ready.token ?? "");
console.log(
  `hub: ready at ${url} (API reference: ${url}/v1/reference; team ${TEAM}, token in ${LOCAL_FILE})`,
);
