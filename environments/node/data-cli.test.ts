import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const data = (...args: string[]) =>
  spawnSync(
    process.execPath,
    [join(ROOT, "node_modules/tsx/dist/cli.mjs"), "environments/node/data-cli.ts", ...args],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  );

it("npm run data -- import prints what it stored, list shows it, and bad input exits 1 with a message", async () => {
  const dir = await mkdtemp(join(tmpdir(), "edgegym-cli-"));
  try {
    const file = join(dir, "test.jsonl");
    await writeFile(file, JSON.stringify({ question: "1+1?", answer: "<<1+1=2>>2\n#### 2" }));
    const ok = data("import", "gsm8k", file, "--db", join(dir, "data.db"));
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      dataset: "gsm8k",
      counts: { test: 1 },
      target: join(dir, "data.db"),
    });

    const list = data("list", "--db", join(dir, "data.db"));
    expect(list.stdout).toBe("gsm8k\ttest\t1\n");

    const bad = data("import", "gsm8k", join(dir, "nothing.jsonl"), "--db", join(dir, "data.db"));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`edgegym data: cannot read ${join(dir, "nothing.jsonl")}: ENOENT`);
    expect(bad.stderr).not.toContain("    at ");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
