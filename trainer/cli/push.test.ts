import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_MAX_BYTES } from "../../hub/hosted/bundle.js";
import { closedPortUrl } from "../testing/faulty-chat-model.js";
import { userProject } from "../testing/user-project.js";
import { bundleEnvironment } from "./bundle.js";
import { loadBundle } from "./load-bundle.js";

const ROOT = resolve(import.meta.dirname, "../..");
type Ran = { code: number; stdout: string; stderr: string };

function edgegym(...args: string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, "trainer/bin/edgegym.js"), ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, timeout: 240_000 },
      (e, stdout, stderr) =>
        done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Exactly one line on stderr, and the exit code. */
function oneLine(r: Ran, text: string | RegExp, code = 2) {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(text);
}

/** The template env with its expert answering wrong: it loads and has tasks, but fails conformance. */
const WRONG_EXPERT = `import { createEnvironmentApp, defineEnvironment } from "edgegym/kit";
import { z } from "zod";
export default createEnvironmentApp(defineEnvironment({
  name: "wrong", version: "1.0.0", description: "an expert that never solves", tools: {},
  tasks: { id: "wrong/1", splits: ["train", "test"], count: () => %COUNT%, get: (_s, i) => ({ i }) },
  limits: { maxSteps: 2 }, reward: { min: 0, max: 1 }, config: {}, stateSchema: z.object({}),
  initialState: () => ({}), firstObservation: () => [{ role: "user", content: "say 1" }],
  finish: (text) => ({ reward: text === "1" ? 1 : 0, components: { outcome: text === "1" ? 1 : 0 } }),
  expert: () => ({ content: "0" }),
}));
`;

const ENTRIES: Record<string, string> = {
  "no-app": "export default 42;\n",
  "throws-at-import": 'throw new Error("boom at import");\n',
  "bad-manifest": 'export default { fetch: () => Response.json({ protocol: "edgegym/v1" }) };\n',
  "no-tasks": WRONG_EXPERT.replace("%COUNT%", "0"),
  "wrong-expert": WRONG_EXPERT.replace("%COUNT%", "3"),
  "outside-data": 'import x from "../outside.json";\nexport default { fetch: () => Response.json(x) };\n',
  "too-large": 'import blob from "./blob.bin";\nexport default { fetch: () => new Response(blob) };\n',
  "no-import": 'import "./missing.ts";\nexport default {};\n',
};

describe("edgegym push refuses in one line, exit 2, naming what failed (spawned processes)", () => {
  const results = new Map<string, Ran>();
  beforeAll(async () => {
    const dir = await userProject();
    await writeFile(join(dir, "outside.json"), "{}");
    for (const [name, entry] of Object.entries(ENTRIES)) {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, "worker.ts"), entry);
    }
    await writeFile(join(dir, "too-large", "blob.bin"), Buffer.alloc(BUNDLE_MAX_BYTES + 1));
    const push = (name: string, ...args: string[]) =>
      edgegym("push", join(dir, name), ...args, "--env", "team/x", "--version", "1.0.0", "--dry-run");
    const template = join(ROOT, "environments/kit/template");
    const cases: [string, Promise<Ran>][] = [
      ...Object.keys(ENTRIES).map((name) => [name, push(name)] as [string, Promise<Ran>]),
      ["no entry", edgegym("push", dir, "--env", "team/x", "--version", "1.0.0")],
      ["bad ref", edgegym("push", template, "--env", "no-slash", "--version", "1.0.0")],
      ["bad semver", edgegym("push", template, "--env", "team/x", "--version", "1.0")],
      [
        "no hub",
        edgegym("push", template, "--env", "team/x", "--version", "1.0.0", "--hub", await closedPortUrl()),
      ],
    ];
    for (const [name, p] of cases) results.set(name, await p);
  }, 600_000);
  const r = (name: string) => results.get(name) as Ran;

  it("an entry that is missing, and input the hub would refuse anyway", () => {
    oneLine(r("no entry"), /^edgegym: no worker\.ts in .* \(the worker entry: .*edgegym init writes one\)$/);
    oneLine(r("bad ref"), "edgegym: expected owner/name, got no-slash");
    oneLine(r("bad semver"), "edgegym: --version 1.0: not a semver (e.g. 1.0.0)");
  });

  it("a bundle that does not build, reaches outside its folder or is over the limit", () => {
    oneLine(
      r("no-import"),
      /^edgegym: bundling worker\.ts failed: .*worker\.ts:1: Could not resolve "\.\/missing\.ts"$/,
    );
    oneLine(
      r("outside-data"),
      /^edgegym: bundling worker\.ts: \.\.\/outside\.json \(imported by worker\.ts\) is outside /,
    );
    oneLine(r("too-large"), /^edgegym: bundle: 10240\.\d KiB is over the hub's limit of 10240\.0 KiB$/);
  });

  it("each local check, by name", () => {
    oneLine(
      r("no-app"),
      "edgegym: check failed: load: the main module's default export is not a fetch handler",
    );
    oneLine(r("throws-at-import"), "edgegym: check failed: load: boom at import");
    oneLine(r("bad-manifest"), /^edgegym: check failed: manifest: name: /);
    oneLine(r("no-tasks"), "edgegym: check failed: tasks: every split of the manifest is empty");
    oneLine(r("wrong-expert"), /^edgegym: check failed: conformance: \d+ of \d+ tests failed; first: /);
  });

  it("a hub it cannot reach, after the checks passed (exit 1: not the user's input)", () => {
    expect(r("no hub").stdout).toMatch(/^checked my-env@1\.0\.0: 30 tasks, \d+ conformance tests passed$/m);
    oneLine(r("no hub"), /^edgegym: cannot reach the hub at http:\/\/127\.0\.0\.1:\d+/, 1);
  });
});

describe("loadBundle", () => {
  it("gives json, text and data modules the values workerd gives them", async () => {
    const app = await loadBundle({
      mainModule: "main.js",
      outbound: [],
      modules: [
        {
          name: "main.js",
          type: "esm",
          content: `import j from "./a.json"; import t from "./b.txt"; import d from "./c.bin";
export default { fetch: () => Response.json({ j, t, d: [d instanceof ArrayBuffer, ...new Uint8Array(d)] }) };`,
        },
        { name: "a.json", type: "json", content: '{"k":[1,2]}' },
        { name: "b.txt", type: "text", content: "plain <text>" },
        { name: "c.bin", type: "data", content: Buffer.from([0, 255, 7]).toString("base64") },
      ],
    });
    const res = await app.fetch(new Request("http://x/"), {});
    expect(await res.json()).toEqual({ j: { k: [1, 2] }, t: "plain <text>", d: [true, 0, 255, 7] });
  });
});

describe("bundleEnvironment", () => {
  it("bundles the template with its data file as a JSON module and the hosts it may reach", async () => {
    const b = await bundleEnvironment(join(ROOT, "environments/kit/template"), "worker.ts", [
      "api.example.com",
    ]);
    if (!b.ok) throw new Error(b.error);
    expect(b.value.outbound).toEqual(["api.example.com"]);
    expect(b.value.modules.map((m) => [m.name, m.type])).toEqual([
      ["worker.js", "esm"],
      ["data/capitals.json", "json"],
    ]);
    expect(b.value.modules[0]?.content).toContain('from "./data/capitals.json"');
    const long = await bundleEnvironment(join(ROOT, "environments/kit/template"), "worker.ts", [
      "x".repeat(254),
    ]);
    expect(long).toEqual({
      ok: false,
      error: expect.stringMatching(/^the bundle is not one the hub takes: outbound\.0 /),
    });
  }, 60_000);
});
