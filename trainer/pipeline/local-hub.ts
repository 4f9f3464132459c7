import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { localSecrets } from "../../environments/node/local-keys.js";
import { hubClient } from "../../hub/client.js";
import { err, ok, type Result } from "../../shared/result.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TEAM = "edgegym";

export type LocalHub = {
  url: string;
  token: string;
  /** The hub's bootstrap secret (creates teams): this process's own, or `HUB_ADMIN_TOKEN`. */
  bootstrap: string;
  stop: () => Promise<void>;
};

export type LocalHubOptions = {
  port: number;
  /** wrangler's `--persist-to` (the local D1 and caches); unset uses wrangler's default `.wrangler/`. */
  persistTo?: string;
  /** The hub's output lines (migrations, bootstrap, publishing). */
  log: (line: string) => void;
  /** How long to wait for the bootstrap to finish. */
  timeoutMs?: number;
};

/**
 * The local hub as `npm run dev` starts it: workerd through `wrangler dev` with a local D1,
 * migrations applied, the team `edgegym` bootstrapped and the built-in envs published, but without a
 * rate limit (it serves this run alone). It runs in its own process group so that stopping it ends
 * wrangler and workerd too.
 */
export async function startLocalHub(opts: LocalHubOptions): Promise<Result<LocalHub>> {
  if (!(await portFree(opts.port))) return err(`port ${opts.port} is in use: pass another with --port`);
  await localSecrets();
  // Our own bootstrap secret: the token is then minted here rather than read back from the shared
  // `.edgegym/hub-local.json`, which another `npm run dev` may be rewriting.
  const bootstrap = process.env.HUB_ADMIN_TOKEN ?? randomBytes(32).toString("base64url");
  let launched = await launch(opts, bootstrap);
  for (let attempt = 2; !launched.ready.ok && launched.raced && attempt <= START_ATTEMPTS; attempt++) {
    opts.log(
      `hub: a port wrangler picked was taken before it bound it (another hub starting at the same moment); starting again, attempt ${attempt} of ${START_ATTEMPTS}`,
    );
    await stopGroup(launched.child);
    await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2000));
    launched = await launch(opts, bootstrap);
  }
  const stop = () => stopGroup(launched.child);
  if (!launched.ready.ok) {
    await stop();
    return launched.ready;
  }
  const url = `http://localhost:${opts.port}`;
  const tokens = hubClient({ url, token: bootstrap }).v1.teams[":team"].tokens;
  const res = await tokens
    .$post({ param: { team: TEAM }, json: { scopes: ["read", "publish", "eval", "admin"] } })
    .catch(() => undefined);
  const minted = res?.ok ? (await res.json()).token : undefined;
  if (!minted) {
    await stop();
    return err(
      `cannot create a token for team ${TEAM} on the local hub (HTTP ${res?.status ?? "unreachable"})`,
    );
  }
  return ok({ url, token: minted, bootstrap, stop });
}

/**
 * wrangler picks the ports of workerd's inner sockets before binding them, so two hubs started in the
 * same second can pick the same one and one exits with "Address already in use" (workers-sdk #2027,
 * #4912). Such a start is tried again, up to this many times in all.
 */
const START_ATTEMPTS = 3;

/** Whether a failed start's output is that race, rather than a fault that another try would repeat. */
export const isPortRace = (output: string) => /Address already in use/i.test(output);

/** Whether nothing listens on `port` (any interface) now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer()
      .once("error", () => done(false))
      .once("listening", () => probe.close(() => done(true)))
      .listen(port);
  });
}

/** One start of the hub: its process, whether it became ready, and whether it lost the port race. */
async function launch(
  opts: LocalHubOptions,
  bootstrap: string,
): Promise<{ child: ChildProcess; ready: Result<void>; raced: boolean }> {
  const args = ["--import", "tsx", resolve(ROOT, "hub/node/dev.ts"), "--port", String(opts.port)];
  if (opts.persistTo) args.push("--persist-to", opts.persistTo);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // The secret reaches dev.ts through its environment, never its command line (see hub/node/wrangler.ts).
    // No rate limit: this hub serves this run alone, whose rollouts made 1,200 requests a minute and
    // then waited on the limit (about half of a default run's RL time: 75 s a segment against 35).
    env: { ...process.env, HUB_ADMIN_TOKEN: bootstrap, HUB_RATE_LIMIT_REQUESTS: "0", FORCE_COLOR: "0" },
  });
  let raced = false;
  const ready = await new Promise<Result<void>>((done) => {
    const timer = setTimeout(
      () => done(err(`the hub did not finish starting in ${opts.timeoutMs ?? 180_000} ms`)),
      opts.timeoutMs ?? 180_000,
    );
    const onLine = (line: string) => {
      if (line.trim() !== "" && !line.startsWith("npm warn")) opts.log(line);
      if (isPortRace(line)) raced = true;
      if (line.startsWith("hub: ready at")) {
        clearTimeout(timer);
        done(ok(undefined));
      }
    };
    lines(child.stdout, onLine);
    lines(child.stderr, onLine);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done(err(`the hub exited (code ${code}) before it was ready`));
    });
  });
  return { child, ready, raced };
}

function lines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let buffered = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    for (const part of parts) onLine(part);
  });
}

/** SIGTERM to the hub's process group, SIGKILL if it is still there after 5 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 5000).unref());
  if ((await Promise.race([exited, timeout])) === "timeout") {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
