import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * wrangler.toml's compatibility date and flags: the bundle is built for them (nodejs_compat gives it
 * `Buffer` and `node:` modules), so workerd must run it under the same ones.
 */
function compatibility(): { date: string; flags: string[] } {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? "2026-10-01";
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return { date, flags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string) };
}

const capnpString = (s: string) => JSON.stringify(s);

/** Every module wrangler wrote (`main` is the entry's, named after its source file): the entry first, then wasm, data and extra JS chunks it references. */
function modules(dir: string, main: string): string {
  const kind = (f: string) => (f.endsWith(".wasm") ? "wasm" : /\.m?js$/.test(f) ? "esModule" : "data");
  const files = readdirSync(dir).filter((f) => f !== main && f !== "README.md" && !f.endsWith(".map"));
  return [main, ...files]
    .map((f) => `(name = ${capnpString(f)}, ${kind(f)} = embed ${capnpString(f)})`)
    .join(", ");
}

/** `wrangler deploy --dry-run` into `dir`; its own error line (not a stack trace) when it fails. */
function bundle(entry: string | undefined, dir: string): void {
  try {
    execFileSync(
      join(ROOT, "node_modules/.bin/wrangler"),
      ["deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", dir],
      {
        cwd: ROOT,
        stdio: "pipe",
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      },
    );
  } catch (e) {
    const out = `${(e as { stdout?: Buffer }).stdout ?? ""}\n${(e as { stderr?: Buffer }).stderr ?? ""}`;
    const lines = stripVTControlCharacters(out)
      .split("\n")
      .map((l) => l.trim());
    const error = lines.find((l) => l.includes("[ERROR]")) ?? lines.filter((l) => l !== "").at(-1) ?? "";
    throw new Error(
      `wrangler could not bundle ${entry ?? "wrangler.toml's main"}: ${error.replace(/^.*\[ERROR\]\s*/, "")}`,
    );
  }
}

/** A listening socket on a free loopback port, for workerd processes to inherit (`--socket-fd`). */
async function listeningSocket(): Promise<{ server: Server; fd: number; port: number }> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen({ port: 0, host: "127.0.0.1", backlog: 1024 }, done);
  });
  const address = server.address();
  // libuv's TCP handle exposes its descriptor on Unix; the children get a copy as their fd 3.
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof address !== "object" || address === null || typeof fd !== "number" || fd < 0)
    throw new Error("no listening socket descriptor to hand to workerd");
  return { server, fd, port: address.port };
}

/**
 * The worker bundled by `wrangler deploy --dry-run` and served by the workerd binary alone, without
 * wrangler dev's proxy. No D1 binding: environments fall back to their built-in tasks. `processes`
 * workerd processes (each runs its isolate on one thread) accept from one listening socket, as the
 * Node host's cluster does: sealed sessions let any of them serve any step.
 */
export async function startWorkerd(
  bindings: Record<string, string>,
  /** Entry module to bundle instead of wrangler.toml's `main`. */
  entry?: string,
  processes = 1,
): Promise<{ origin: string; pids: number[]; stop: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "edgegym-bench-"));
  bundle(entry, dir);
  const compat = compatibility();
  const texts = Object.entries(bindings)
    .map(([name, value]) => `(name = ${capnpString(name)}, text = ${capnpString(value)})`)
    .join(", ");
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules(dir, `${basename(entry ?? "worker.ts", extname(entry ?? "worker.ts"))}.js`)}],
  compatibilityDate = ${capnpString(compat.date)},
  compatibilityFlags = [${compat.flags.map(capnpString).join(", ")}],
  bindings = [${texts}],
);
`,
  );
  const socket = await listeningSocket();
  const children: ChildProcess[] = Array.from({ length: processes }, () =>
    spawn(join(ROOT, "node_modules/.bin/workerd"), ["serve", "config.capnp", "--socket-fd", "http=3"], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit", socket.fd],
    }),
  );
  // The children hold their own copies; closing the parent's keeps it from accepting any connection.
  await new Promise<void>((done) => socket.server.close(() => done()));
  const stop = () => {
    for (const c of children) c.kill("SIGTERM");
  };
  const origin = `http://127.0.0.1:${socket.port}`;
  for (let i = 0; i < 200; i++) {
    try {
      // Any answer means workerd is serving (the ceiling app has no GET route).
      await (await fetch(`${origin}/envs`)).arrayBuffer();
      return { origin, pids: children.flatMap((c) => (c.pid === undefined ? [] : [c.pid])), stop };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  stop();
  throw new Error("workerd did not start within 20 s");
}
