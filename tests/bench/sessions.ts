/**
 * `npm run bench:sessions`: how many concurrent OpenEnv episodes a host holds. For each host (the
 * Node host, one process; the environments' worker on the workerd binary, one process) and each
 * protocol (OpenEnv's `/ws`, one socket per episode; and its stateless HTTP `/reset` + `/step`), C
 * episodes of `calculator` are opened at once and each takes `--rounds` tool-call steps in lockstep,
 * all C held open the whole time. C grows by `--factor` from `--start` until fewer than 99% of the
 * episodes finish or C passes `--max`. Prints JSON: per level, the episodes held to the end, steps/s,
 * P50/P99 step latency and the server's resident memory with all C open. Loopback only; the load
 * generator shares the machine's CPU with the server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { Agent } from "undici";
import WebSocket from "ws";
import { generateSecrets } from "../../environments/kit/index.js";
import { scriptArgs } from "../../shared/script-args.js";
import { startWorkerd } from "./workerd-host.js";

const USAGE = `Usage: npm run bench:sessions -- [options]

Concurrent OpenEnv episodes (WebSocket and HTTP) on the Node host and workerd, printed as JSON.

Options:
  --host <list>       node, workerd (default both)
  --protocol <list>   ws, http (default both)
  --start <n>         first C (default 256)
  --factor <n>        C grows by this factor (default 4)
  --max <n>           largest C tried (default 16384)
  --rounds <n>        tool-call steps per episode, at most 7 (default 4)
  --timeout <s>       a step (or connect) slower than this fails its episode (default 60)
  -h, --help          this text`;
const args = scriptArgs("bench:sessions", USAGE, {
  host: { type: "string", default: "node,workerd" },
  protocol: { type: "string", default: "ws,http" },
  start: { type: "string", default: "256" },
  factor: { type: "string", default: "4" },
  max: { type: "string", default: "16384" },
  rounds: { type: "string", default: "4" },
  timeout: { type: "string", default: "60" },
});
const rounds = Math.min(7, Math.max(1, args.number("rounds")));
const timeoutMs = args.number("timeout") * 1000;
const factor = Math.max(2, args.number("factor"));
const maxC = args.number("max");
const start = args.number("start");

const TOOL_STEP = {
  content: '<tool_call>{"name":"calculator","arguments":{"expression":"(3+4)*2"}}</tool_call>',
};

type Episode = {
  reset(): Promise<void>;
  step(): Promise<void>;
  /** Resolves once the connection is gone, so the next level starts with its descriptors free. */
  close(): Promise<void>;
};

const within = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, fail) =>
      setTimeout(() => fail(new Error(`${what} timed out`)), timeoutMs).unref(),
    ),
  ]);

/** One episode over `/ws`: the socket holds the episode; one reply per message, in order. */
async function socketEpisode(base: string): Promise<Episode> {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`);
  const waiting: ((reply: { type: string; data: unknown }) => void)[] = [];
  ws.on("message", (d) => waiting.shift()?.(JSON.parse(String(d))));
  ws.on("close", () => {
    for (const w of waiting.splice(0)) w({ type: "error", data: "closed" });
  });
  await within(
    new Promise<void>((ok, fail) => {
      ws.once("open", () => ok());
      ws.once("error", fail);
    }),
    "connect",
  );
  ws.on("error", () => {});
  const ask = async (message: unknown) => {
    const reply = new Promise<{ type: string; data: unknown }>((r) => waiting.push(r));
    ws.send(JSON.stringify(message));
    const r = await within(reply, "reply");
    if (r.type !== "observation") throw new Error(`reply ${r.type}`);
  };
  return {
    reset: () => ask({ type: "reset", data: { split: "train" } }),
    step: () => ask({ type: "step", data: TOOL_STEP }),
    close: () =>
      new Promise<void>((done) => {
        if (ws.readyState === WebSocket.CLOSED) return done();
        ws.once("close", () => done());
        ws.close();
        setTimeout(done, 5000).unref();
      }),
  };
}

/** One episode over stateless HTTP: the client holds the token, the server nothing. */
function httpEpisode(base: string, dispatcher: Agent): Episode {
  let token = "";
  const post = async (path: string, body: unknown) => {
    const res = await within(
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        dispatcher,
      } as RequestInit),
      path,
    );
    const json = (await res.json()) as { observation?: { metadata?: { session?: string } } };
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    token = json.observation?.metadata?.session ?? "";
  };
  return {
    reset: () => post("/reset", { split: "train" }),
    step: () => post("/step", { action: TOOL_STEP, session: token }),
    close: async () => {},
  };
}

/** A failure's message with its cause's (undici's `fetch failed` says nothing alone). */
function why(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause =
    err.cause instanceof Error
      ? `: ${(err.cause as Error & { code?: string }).code ?? err.cause.message}`
      : "";
  return `${err.message}${cause}`;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null);

/** Resident memory of the server's processes, in MiB (Linux /proc). */
function rssMiB(pids: readonly number[]): number | null {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      kb += Number(m?.[1] ?? 0);
    } catch {
      return null;
    }
  }
  return Math.round(kb / 102.4) / 10;
}

async function level(base: string, protocol: string, c: number, pids: readonly number[]) {
  const dispatcher = new Agent({ connections: c, pipelining: 1 });
  const alive: (Episode | undefined)[] = new Array(c).fill(undefined);
  const open = await Promise.allSettled(
    alive.map(async (_, i) => {
      const e = protocol === "ws" ? await socketEpisode(base) : httpEpisode(base, dispatcher);
      await e.reset();
      alive[i] = e;
    }),
  );
  const failures = new Set<string>();
  for (const o of open) if (o.status === "rejected") failures.add(why(o.reason));
  const latencies: number[] = [];
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      alive.map(async (e, i) => {
        if (!e) return;
        const s = performance.now();
        try {
          await e.step();
          latencies.push(performance.now() - s);
        } catch (err) {
          failures.add(why(err));
          void e.close();
          alive[i] = undefined;
        }
      }),
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const memory = rssMiB(pids);
  const held = alive.filter(Boolean).length;
  await Promise.all(alive.map((e) => e?.close()));
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  return {
    concurrency: c,
    held,
    success: Math.round((held / c) * 10000) / 10000,
    stepsPerSecond: Math.round(latencies.length / seconds),
    p50Ms: round(percentile(latencies, 0.5)),
    p99Ms: round(percentile(latencies, 0.99)),
    serverRssMiB: memory,
    ...(failures.size > 0 ? { failures: [...failures].slice(0, 3) } : {}),
  };
}

/** The Node host in its own process, as `npm run envs` runs it with one worker. */
async function startNode(bindings: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", resolve(import.meta.dirname, "node-host.ts")],
    {
      env: { ...process.env, EDGEGYM_BENCH_BINDINGS: JSON.stringify(bindings), NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((done, fail) => {
    if (child.stdout) createInterface({ input: child.stdout }).once("line", done);
    child.once("exit", (code) => fail(new Error(`the Node host exited (${code}) before listening`)));
  });
  const { port, pids } = JSON.parse(line) as { port: number; pids: number[] };
  return { origin: `http://127.0.0.1:${port}`, pids, stop: () => child.kill("SIGTERM") };
}

const bindings = await generateSecrets();
const report: Record<string, unknown> = {
  benchmark: `concurrent calculator episodes over OpenEnv: reset, then ${rounds} tool-call steps each, all held at once`,
  cpus: cpus().length,
  loadAverageAtStart: loadavg()[0],
};
for (const host of args.values.host.split(",")) {
  const server =
    host === "workerd"
      ? await startWorkerd(bindings, "environments/worker.ts", 1)
      : await startNode(bindings);
  try {
    const idle = rssMiB(server.pids);
    for (const protocol of args.values.protocol.split(",")) {
      const levels = [];
      for (let c = start; c <= maxC; c *= factor) {
        const r = await level(`${server.origin}/envs/calculator`, protocol, c, server.pids);
        levels.push(r);
        console.error(`bench:sessions: ${host} ${protocol} C=${c}: ${JSON.stringify(r)}`);
        if (r.success < 0.99) break;
      }
      report[`${host}-${protocol}`] = { idleServerRssMiB: idle, levels };
    }
  } finally {
    server.stop();
  }
}
console.log(JSON.stringify(report, null, 2));
process.exit(0);
