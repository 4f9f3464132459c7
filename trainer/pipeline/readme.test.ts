import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestHub } from "../testing/test-hub.js";
import { userProject } from "../testing/user-project.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "trainer/bin/edgegym.js");

/** The README's fenced shell blocks after "## How to", with their info strings. */
async function howToBlocks(): Promise<{ runnable: boolean; body: string }[]> {
  const text = await readFile(join(ROOT, "README.md"), "utf8");
  const howTo = text.slice(text.indexOf("\n## How to"));
  return [...howTo.matchAll(/```sh( runnable)?\n([\s\S]*?)```/g)].map((m) => ({
    runnable: m[1] !== undefined,
    body: m[2] ?? "",
  }));
}

let hub: Awaited<ReturnType<typeof startTestHub>>;
beforeAll(async () => {
  hub = await startTestHub("readme");
}, 240_000);

afterAll(async () => {
  await hub?.stop();
});

describe("README how-to commands", () => {
  it("every `npx edgegym` command and flag in the README exists in the CLI", async () => {
    const lines = (await howToBlocks())
      .flatMap((b) => b.body.replaceAll("\\\n", " ").split("\n"))
      .filter((l) => l.trim().startsWith("npx edgegym "));
    expect(lines.length).toBeGreaterThan(8);
    // Subcommands are the leading words before the first flag or argument (`envs show`, `tokens create`).
    const groups = ["envs", "tokens", "teams", "evals"];
    const commandOf = (line: string) => {
      const words = line.trim().split(/\s+/).slice(2);
      return groups.includes(words[0] ?? "") ? words.slice(0, 2) : words.slice(0, 1);
    };
    // Every command's help at once: each is a process start, and the machine's cores are shared.
    const keys = [...new Set(lines.map((l) => commandOf(l).join(" ")))];
    const helps = await Promise.all(
      keys.map(
        async (key) =>
          (await run(process.execPath, [CLI, ...key.split(" "), "--help"], { cwd: ROOT })).stdout,
      ),
    );
    const help = new Map(keys.map((k, i) => [k, helps[i]]));
    for (const line of lines) {
      const key = commandOf(line).join(" ");
      for (const flag of line.match(/ --[a-z-]+/g) ?? [])
        expect(help.get(key), `${key}: ${flag}`).toContain(`${flag.trim()} `);
    }
  }, 120_000);

  it("every `npm start` flag in the README is one start.ts parses", async () => {
    const text = await readFile(join(ROOT, "README.md"), "utf8");
    const source = await readFile(join(ROOT, "trainer/pipeline/start.ts"), "utf8");
    const flags = [...text.matchAll(/^npm start -- (.*)$/gm)].flatMap((m) => m[1]?.match(/--[a-z-]+/g) ?? []);
    expect(flags).toEqual(expect.arrayContaining(["--recipe", "--reuse", "--fresh"]));
    // parseArgs options are `name: {` or `"name-with-dash": {`.
    for (const flag of new Set(flags))
      expect(source, flag).toMatch(new RegExp(`^\\s+"?${flag.slice(2)}"?: \\{ type:`, "m"));
    // `npm start -- --list` itself, which needs no hub.
    const listed = await run(
      process.execPath,
      ["--import", "tsx", join(ROOT, "trainer/pipeline/start.ts"), "--list"],
      {
        cwd: ROOT,
      },
    );
    expect(listed.stdout.split("\n")).toEqual(
      expect.arrayContaining(["calculator-grpo", "code-rloo", "webshop-steppo"]),
    );
  }, 60_000);

  it("the local hub starts quietly and keeps its bootstrap secret off every command line", async () => {
    const log = hub.log.join("\n");
    // No lookups of Cloudflare's servers (telemetry, update check, Request.cf) failing offline.
    expect(log).not.toMatch(/ENOTFOUND|workers\.cloudflare\.com/);
    // One line for the migrations instead of a table and a banner per migration.
    expect(log).not.toContain("Executing on local database");
    const migrations = (await readdir(join(ROOT, "migrations"))).filter((f) => f.endsWith(".sql"));
    expect(hub.log.filter((l) => l.includes("migrations"))).toEqual([
      `hub: D1 migrations applied (${migrations.length} new)`,
    ]);
    // `ps` shows every process's arguments to every user: the secret must be in none of them.
    const ps = await run("ps", ["-eww", "-o", "args"]);
    expect(ps.stdout).toContain("wrangler");
    expect(ps.stdout).not.toContain(hub.bootstrap);
  });

  it("the runnable blocks run against a real local hub", async () => {
    const blocks = (await howToBlocks()).filter((b) => b.runnable);
    expect(blocks.length).toBe(5);
    const config = await mkdtemp(join(tmpdir(), "edgegym-readme-config-"));
    // Where `npm run dev` would keep the bootstrap secret; this hub has its own.
    const bootstrapFile = join(config, "hub-local.json");
    await writeFile(bootstrapFile, JSON.stringify({ bootstrap: hub.bootstrap }), { mode: 0o600 });
    // `npx edgegym` is the package's own bin: run it directly rather than through npm's resolver.
    const script = [
      "set -euo pipefail",
      `npx() { if [ "$1" = edgegym ]; then shift; node ${CLI} "$@"; else command npx "$@"; fi; }`,
      ...blocks.map((b) => b.body),
    ].join("\n");
    const out = await run("bash", ["-c", script], {
      cwd: ROOT,
      env: {
        ...process.env,
        HUB: hub.url,
        TOKEN: hub.token,
        ENV_PORT: String(await freePort()),
        BOOTSTRAP_FILE: bootstrapFile,
        // `edgegym init` writes into a user's own project here, not into this checkout's environments/.
        QUIZ_DIR: join(await userProject(), "capital-quiz"),
        XDG_CONFIG_HOME: config,
        EDGEGYM_CONFIG_DIR: join(config, "edgegym"),
      },
      timeout: 240_000,
    });
    expect(out.stdout).toContain(`logged in to ${hub.url}`);
    // init, push, then an evaluation of the hosted env through the hub: receipts verified, ranked.
    expect(out.stdout).toMatch(/^wrote capital-quiz in .*capital-quiz: conformance\.test\.ts, /m);
    expect(out.stdout).toMatch(/^checked capital-quiz@1\.0\.0: 30 tasks, \d+ conformance tests passed$/m);
    expect(out.stdout).toMatch(/^published edgegym\/capital-quiz@1\.0\.0 \(sha256:[0-9a-f]{64}\)$/m);
    expect(out.stdout).toMatch(/^receipts accepted\s+10 \(rejected 0\)$/m);
    expect(out.stdout).toMatch(/^hub verified\s+10$/m);
    expect(out.stdout).toMatch(/\n1\s+calculator-sft\s+\d\.\d{3}\s+\S+\s+\S+\s+10\s+10\s+edgegym\s+run_/);
    const card = await (await fetch(`${hub.url}/edgegym/capital-quiz`)).text();
    expect(card).toContain('<h2 id="hosted">Hosted code</h2>');
    expect(out.stdout).toMatch(/published edgegym\/my-calculator@0\.1\.0/);
    // Sharing: the new team reads the private env while it is shared, and gets 404 once revoked.
    expect(out.stdout).toContain("created team other-team");
    expect(out.stdout).toContain("shared edgegym/my-calculator with other-team (read)");
    expect(out.stdout).toContain("other-team sees edgegym/my-calculator");
    expect(out.stdout).toContain("other-team gets 404 again");
    expect(out.stderr).toContain("edgegym: no environment edgegym/my-calculator (not_found)");
    expect(out.stdout).toContain(
      'updated edgegym/my-calculator: visibility public, description "my calculator, for everyone"',
    );
    // The curl evaluation: 10 tasks, each with a verified receipt of a wrong (or lucky) answer.
    expect(out.stdout.match(/"ok":true/g)).toHaveLength(10);
    expect(out.stdout).toMatch(/"n": 10,\s+"verified": 10/);
    // 10 tasks reach the leaderboard's floor of 10, so curl-demo has an entry.
    expect(out.stdout).toMatch(/\n1\s+curl-demo\s+\d\.\d{3}\s+\S+\s+\S+\s+10\s+10\s+edgegym\s+run_/);
    expect(out.stdout).toMatch(/verified episodes 10 of 10 tasks/);
  }, 300_000);
});
