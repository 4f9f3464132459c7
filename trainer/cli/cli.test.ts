import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { closedPortUrl } from "../testing/faulty-chat-model.js";

const ROOT = resolve(import.meta.dirname, "../..");
type Ran = { code: number; stdout: string; stderr: string };

/** Runs a script of the repository with node (through tsx) and returns its exit code and output. */
function run(args: string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, timeout: 150_000 },
      (e, stdout, stderr) =>
        done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const edgegym = (...args: string[]) => run(["trainer/bin/edgegym.js", ...args]);
const start = (...args: string[]) => run(["--import", "tsx", "trainer/pipeline/start.ts", ...args]);

/** A user's mistake: exit code 2 and exactly one line on stderr, no stack trace. */
function oneLine(r: Ran, text: string | RegExp) {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(text);
}

describe("the CLI's answers to a user's mistakes (spawned processes)", () => {
  const results = new Map<string, Ran>();
  let url = "";
  let dir = "";
  // All processes start at once: the machine's cores are shared, and each is mostly tsx's start-up.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "edgegym-cli-"));
    url = await closedPortUrl();
    await writeFile(join(dir, "broken.json"), "{");
    await writeFile(
      join(dir, "typo.json"),
      // With the typo let through, the missing base would still stop it before any hub starts.
      JSON.stringify({
        description: "d",
        env: "edgegym/calculator@1.0.0",
        segments: 2,
        base: "no/such/base",
      }),
    );
    const cases: [string, Promise<Ran>][] = [
      ["missing config", edgegym("train", "--config", "nope.json")],
      ["broken config", edgegym("train", "--config", join(dir, "broken.json"))],
      ["unknown flag", edgegym("train", "--frob")],
      // An env that does not exist: were the key let through, the run would stop there, not train.
      ["unknown key", edgegym("train", "--env", "local:no-such-env", "--set", "learningRate=1e-3")],
      ["bad url", edgegym("eval", "--env", "local:calculator", "--policy", "openai:localhost:9504")],
      ["eval help", edgegym("eval", "--help")],
      [
        "server down",
        edgegym(
          "eval",
          "--env",
          "local:calculator",
          "--policy",
          `openai:${url}`,
          "--n",
          "2",
          "--retries",
          "0",
          "--out",
          join(dir, "eval"),
        ),
      ],
      [
        "tokenizer merges",
        edgegym("tokenizer", "--env", "local:calculator-l1", "--out", dir, "--merges", "0"),
      ],
      [
        "tokenizer",
        edgegym(
          "tokenizer",
          ...["--env", "local:calculator-l1", "--episodes", "8", "--merges", "16", "--out", join(dir, "tok")],
        ),
      ],
      [
        "expand same depth",
        edgegym(
          "expand",
          "--init",
          "recipes/checkpoints/calculator-sft",
          "--layers",
          "2",
          "--out",
          join(dir, "x"),
        ),
      ],
      [
        "expand",
        edgegym(
          "expand",
          "--init",
          "recipes/checkpoints/calculator-sft",
          "--layers",
          "3",
          "--out",
          join(dir, "deeper"),
        ),
      ],
      ["start help", start("--help")],
      ["start flag", start("--frob")],
      ["start recipe", start("--recipe", "nope")],
      ["start typo", start("--recipe", join(dir, "typo.json"))],
    ];
    for (const [name, ran] of cases) results.set(name, await ran);
  }, 180_000);
  const get = (name: string) => results.get(name) as Ran;

  it("train: a missing or malformed --config, an unknown flag or key is one line and exit 2", () => {
    oneLine(get("missing config"), /^edgegym: --config nope\.json: no such file$/);
    oneLine(get("broken config"), /^edgegym: --config .*broken\.json is not JSON: /);
    oneLine(get("unknown flag"), /^edgegym: unknown option '--frob'$/);
    oneLine(get("unknown key"), /^edgegym: bad config: unknown key learningRate; did you mean lr\?$/);
  });

  it("tokenizer: a bad --merges is one line and exit 2; a good run says what it learned and wrote", async () => {
    oneLine(get("tokenizer merges"), /^edgegym: bad config: merges: /);
    const ok = get("tokenizer");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(
      /edgegym: 16 merges \(vocabulary \d+\) from 8 expert episodes to .*tok: [\d.]+ byte tokens per episode → [\d.]+/,
    );
    const config = JSON.parse(await readFile(join(dir, "tok", "tokenizer_config.json"), "utf8"));
    expect(config.edgegym_tokenizer).toBe("edgegym-bpe");
  });

  it("expand: a depth that is not deeper is one line and exit 2; a good run writes a deeper checkpoint", async () => {
    oneLine(
      get("expand same depth"),
      /^edgegym: recipes\/checkpoints\/calculator-sft: layers must be an integer above 2 and at most 8, got 2$/,
    );
    const ok = get("expand");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(
      "3 layers from the 2 of recipes/checkpoints/calculator-sft (old layers 0, 1, 1′;",
    );
    const config = JSON.parse(await readFile(join(dir, "deeper", "config.json"), "utf8"));
    expect(config.num_hidden_layers).toBe(3);
  });

  it("eval: a URL without http:// is refused up front; a server that is down is named and exits 1", () => {
    oneLine(
      get("bad url"),
      /needs an http\(s\) URL, got "localhost:9504" \(for example openai:http:\/\/localhost:9504\)/,
    );
    const down = get("server down");
    expect(down.code).toBe(1);
    expect(down.stdout).toContain(
      `policy connection refused ×2, first: policy: connection refused at ${url}`,
    );
    expect(down.stderr).toContain("every one of the 2 episodes failed for infrastructure");
    // Not a TTY here: one progress line per task (2 tasks, a line per ⌈2/10⌉ = 1).
    expect(down.stderr).toContain("eval 2/2 tasks");
    expect(down.stderr).toContain(`results.json and trajectories.jsonl in ${join(dir, "eval")}`);
  });

  it("eval --help shows --max-new-tokens, --tool-format and --out", () => {
    const help = get("eval help");
    expect(help.code).toBe(0);
    for (const flag of ["--max-new-tokens", "--tool-format", "--out", "--model"])
      expect(help.stdout).toContain(flag);
  });

  it("npm start: a real --help; an unknown flag, a wrong recipe name or a recipe's unknown key is one line and exit 2", () => {
    const help = get("start help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: npm start -- [options]");
    expect(help.stdout).toContain("--recipe");
    oneLine(get("start flag"), /^edgegym: Unknown option '--frob'/);
    oneLine(get("start recipe"), /^edgegym: no recipe "nope" \(known: .*calculator-grpo/);
    oneLine(get("start typo"), /unknown key segments; did you mean segment\?$/);
  });
});
