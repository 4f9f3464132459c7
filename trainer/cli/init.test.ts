import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { userProject } from "../testing/user-project.js";
import { defaultInitDir, initEnvironment } from "./init.js";

const ROOT = resolve(import.meta.dirname, "../..");
type Ran = { code: number; stdout: string; stderr: string };

function run(cmd: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, NO_COLOR: "1" }, timeout: 240_000 },
      (e, stdout, stderr) =>
        done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("edgegym init, then its conformance test and push --dry-run, in a user's project", () => {
  let project = "";
  let init: Ran;
  let test: Ran;
  let push: Ran;
  beforeAll(async () => {
    project = await userProject();
    init = await run(
      process.execPath,
      [join(ROOT, "trainer/bin/edgegym.js"), "init", "capital-quiz"],
      project,
    );
    const dir = join(project, "capital-quiz");
    // Deadlines only for a hang: vitest's default 5 s is less than the suite's property tests take on
    // a loaded machine (40 s seen), and a test past it closes the server under the rest.
    const vitest = [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", project];
    test = await run(
      process.execPath,
      [...vitest, "--testTimeout", "300000", "--hookTimeout", "300000"],
      project,
    );
    push = await run(
      process.execPath,
      [
        join(ROOT, "trainer/bin/edgegym.js"),
        "push",
        dir,
        "--env",
        "team/capital-quiz",
        "--version",
        "1.0.0",
        "--dry-run",
      ],
      project,
    );
  }, 600_000);

  it("writes the env under ./<name> with its name and identifier in place of the template's", async () => {
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      "wrote capital-quiz in capital-quiz: conformance.test.ts, data/capitals.json, expert.ts, index.ts, score.ts, tasks.ts, tools.ts, worker.ts",
    );
    const index = await readFile(join(project, "capital-quiz/index.ts"), "utf8");
    expect(index).toContain("export const capitalQuiz = defineEnvironment");
    expect(index).toContain('name: "capital-quiz"');
    expect(index).not.toMatch(/my-env|myEnv/);
    expect(await readFile(join(project, "capital-quiz/worker.ts"), "utf8")).toContain(
      "export default createEnvironmentApp(capitalQuiz)",
    );
  });

  it("passes its own conformance test as written", () => {
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain("capital-quiz/conformance.test.ts");
    expect(test.stdout).toMatch(/Tests\s+\d+ passed/);
  });

  it("bundles and passes push's checks", () => {
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toMatch(
      /^bundled 2 modules, [\d.]+ KiB: worker\.js [\d.]+ KiB, data\/capitals\.json [\d.]+ KiB$/m,
    );
    expect(push.stdout).toMatch(/^checked capital-quiz@1\.0\.0: 30 tasks, \d+ conformance tests passed$/m);
  });
});

describe("initEnvironment", () => {
  it("refuses a name that is not an env name, and a folder that is not empty", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-init-"));
    await expect(initEnvironment("Not_A_Name", join(dir, "x"))).rejects.toThrow(
      'env name "Not_A_Name": use a-z, 0-9 and -, starting with a letter',
    );
    await expect(initEnvironment("9lives", join(dir, "y"))).rejects.toThrow("starting with a letter");
    await writeFile(join(dir, "taken.txt"), "");
    await expect(initEnvironment("fine", dir)).rejects.toThrow(`${dir} exists and is not empty`);
  });

  it("writes into environments/<name> in an edgegym checkout, else ./<name>", async () => {
    expect(defaultInitDir("quiz", ROOT)).toBe(join(ROOT, "environments/quiz"));
    const elsewhere = await mkdtemp(join(tmpdir(), "edgegym-init-"));
    expect(defaultInitDir("quiz", elsewhere)).toBe(join(elsewhere, "quiz"));
  });
});
