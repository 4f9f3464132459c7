import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, extname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** A free TCP port: workerd takes a fixed address, so ask the OS for one and hand it over. */
async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => done(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

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

/**
 * The worker bundled by `wrangler deploy --dry-run` and served by the workerd binary alone, without
 * wrangler dev's proxy. No D1 binding: environments fall back to their built-in tasks.
 */
export async function startWorkerd(
  bindings: Record<string, string>,
  /** Entry module to bundle instead of wrangler.toml's `main`. */
  entry?: string,
): Promise<{ origin: string; pids: number[]; stop: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "edgegym-bench-"));
  execFileSync(
    join(ROOT, "node_modules/.bin/wrangler"),
    ["deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", dir],
    {
      cwd: ROOT,
      stdio: "ignore",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );
  const port = await freePort();
  const compat = compatibility();
  const texts = Object.entries(bindings)
    .map(([name, value]) => `(name = ${capnpString(name)}, text = ${capnpString(value)})`)
    .join(", ");
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules(dir, `${basename(entry ?? "worker.ts", extname(entry ?? "worker.ts"))}.js`)}],
  compatibilityDate = ${capnpString(compat.date)},
  compatibilityFlags = [${compat.flags.map(capnpString).join(", ")}],
  bindings = [${texts}],
);
`,
  );
  const child: ChildProcess = spawn(join(ROOT, "node_modules/.bin/workerd"), ["serve", "config.capnp"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      // Any answer means workerd is serving (the ceiling app has no GET route).
      await (await fetch(`${origin}/envs`)).arrayBuffer();
      return {
        origin,
        pids: child.pid === undefined ? [] : [child.pid],
        stop: () => child.kill("SIGTERM"),
      };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill("SIGTERM");
  throw new Error("workerd did not start within 20 s");
}
