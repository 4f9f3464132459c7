import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
type Ran = { code: number; stderr: string };

/** `edgegym serve …` as a user runs it; each of these exits before loading a model or listening. */
function serve(...args: string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["trainer/bin/edgegym.js", "serve", ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 },
      (e, _stdout, stderr) => done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe("edgegym serve: a user's mistakes are one line and exit 2", () => {
  it("names a folder that is not a checkpoint, a bad port and a bad backend", async () => {
    const [folder, port, backend] = await Promise.all([
      serve("no/such/checkpoint"),
      serve("recipes/checkpoints/calculator-sft", "--port", "http"),
      serve("recipes/checkpoints/calculator-sft", "--backend", "webgl"),
    ]);
    const line = (r: Ran) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      return r.stderr.trim();
    };
    expect(line(folder)).toBe("edgegym: no/such/checkpoint is not a checkpoint folder (no config.json)");
    expect(line(port)).toMatch(/^edgegym: bad option --port: /);
    expect(line(backend)).toMatch(/^edgegym: bad option --backend: .*"tensorflow-gpu"/);
  }, 150_000);
});
