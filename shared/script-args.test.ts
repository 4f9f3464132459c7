import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
type Ran = { code: number; stdout: string; stderr: string };

/** Runs a script with node through tsx, as `npm run` does, and returns its exit code and output. */
function run(script: string, ...args: string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", script, ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, timeout: 150_000 },
      (e, stdout, stderr) =>
        done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A user's mistake: exit code 2 and exactly one line on stderr, no stack trace. */
function oneLine(r: Ran, text: string) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toEqual([text]);
  expect(r.stdout).toBe("");
}

describe("scriptArgs in a spawned script", () => {
  const results = new Map<string, Ran>();
  let dir = "";
  // All processes start at once: each is mostly tsx's start-up, and the machine's cores are shared.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "edgegym-script-args-"));
    const tiny = join(dir, "tiny.ts");
    await writeFile(
      tiny,
      `import { scriptArgs } from ${JSON.stringify(pathToFileURL(join(ROOT, "shared/script-args.ts")).href)};
const args = scriptArgs("tiny", "Usage: tiny [--n <count>]", { n: { type: "string", default: "1" } });
console.log(JSON.stringify({ n: args.number("n") }));
`,
    );
    const cases: [string, Promise<Ran>][] = [
      ["unknown", run(tiny, "--bogus")],
      ["missing", run(tiny, "--n")],
      ["ambiguous", run(tiny, "--n", "-3")],
      ["not a number", run(tiny, "--n", "abc")],
      ["help", run(tiny, "--help")],
      ["h", run(tiny, "-h")],
      ["fine", run(tiny, "--n", "3")],
      // A real script too: its flags are read before its heavy work starts.
      ["results", run("trainer/results/main.ts", "--bogus")],
      ["start", run("trainer/pipeline/start.ts", "--bogus")],
    ];
    for (const [name, ran] of cases) results.set(name, await ran);
  }, 300_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const get = (name: string) => results.get(name) as Ran;

  it("an unknown flag, a missing value or a value that is not a number is one line and exit 2", () => {
    oneLine(get("unknown"), "tiny: Unknown option '--bogus' (--help lists the options)");
    oneLine(get("missing"), "tiny: Option '--n <value>' argument missing (--help lists the options)");
    oneLine(get("not a number"), `tiny: --n wants a number ≥ 0, not "abc" (--help lists the options)`);
    oneLine(get("results"), "results: Unknown option '--bogus' (--help lists the options)");
    oneLine(get("start"), "edgegym: Unknown option '--bogus' (npm start -- --help lists the options)");
  });

  it("keeps Node's message on several lines to one", () => {
    const r = get("ambiguous");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^tiny: Option '--n' argument is ambiguous\. .* \(--help lists the options\)\n$/,
    );
  });

  it("--help and -h print the usage and exit 0 before the script's work", () => {
    for (const r of [get("help"), get("h")]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe("Usage: tiny [--n <count>]\n");
      expect(r.stderr).toBe("");
    }
  });

  it("hands good flags on, numbers read", () => {
    expect(get("fine")).toEqual({ code: 0, stdout: '{"n":3}\n', stderr: "" });
  });
});
