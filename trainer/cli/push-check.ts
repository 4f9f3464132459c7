import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { generateSecrets } from "../../environments/kit/index.js";
import type { HostedBundle } from "../../shared/hosted.js";
import { Manifest } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { loadBundle } from "./load-bundle.js";

/** What the local checks found: the manifest the bundle serves and how many conformance tests ran. */
export type BundleCheck = { manifest: Manifest; tasks: number; conformanceTests: number };

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHECK_FILE = fileURLToPath(new URL("./push-conformance.check.ts", import.meta.url));

/** A task of vitest's result tree, as far as the summary reads it. */
type TaskNode = {
  type: string;
  name: string;
  result?: { state?: string; errors?: { message?: string }[] };
  tasks?: TaskNode[];
};

const testsOf = (t: TaskNode): TaskNode[] => (t.type === "test" ? [t] : (t.tasks ?? []).flatMap(testsOf));

/**
 * Runs the edgegym/v1 conformance suite against the bundle in-process (vitest, programmatically,
 * without the repo's config): the number of tests, or the first failure in one line.
 */
async function runConformance(bundle: HostedBundle): Promise<Result<number, string>> {
  let vitestNode: typeof import("vitest/node");
  try {
    vitestNode = await import("vitest/node");
  } catch {
    return err("conformance: the check needs vitest (npm install --save-dev vitest)");
  }
  const dir = await mkdtemp(join(tmpdir(), "edgegym-push-"));
  const bundleFile = join(dir, "bundle.json");
  await writeFile(bundleFile, JSON.stringify(bundle));
  const before = process.env.EDGEGYM_PUSH_BUNDLE;
  process.env.EDGEGYM_PUSH_BUNDLE = bundleFile;
  try {
    const vitest = await vitestNode.startVitest(
      "test",
      [],
      {
        config: false,
        root: ROOT,
        include: [relative(ROOT, CHECK_FILE)],
        watch: false,
        reporters: [{}],
        // Deadlines only for a hang: a slow machine is not a failed check (the property tests took
        // 40 s on a loaded one).
        testTimeout: 300_000,
        hookTimeout: 300_000,
      },
      { logLevel: "silent" },
    );
    const files = vitest.state.getFiles() as unknown as TaskNode[];
    await vitest.close();
    const tests = files.flatMap(testsOf);
    const failed = tests.filter((t) => t.result?.state === "fail");
    const fileError = files.find((f) => f.result?.state === "fail")?.result?.errors?.[0]?.message;
    if (tests.length === 0)
      return err(`conformance: no tests ran${fileError ? ` (${oneLine(fileError)})` : ""}`);
    const first = failed[0];
    if (first) {
      const why = first.result?.errors?.[0]?.message ?? "failed";
      return err(
        `conformance: ${failed.length} of ${tests.length} tests failed; first: ${first.name}: ${oneLine(why)}`,
      );
    }
    return ok(tests.length);
  } finally {
    if (before === undefined) delete process.env.EDGEGYM_PUSH_BUNDLE;
    else process.env.EDGEGYM_PUSH_BUNDLE = before;
    await rm(dir, { recursive: true, force: true });
  }
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").slice(0, 300);

/**
 * The checks `edgegym push` makes before uploading, each failure naming its check: the bundle loads
 * and exports a fetch handler, its manifest is valid, some split has tasks, and the conformance
 * suite passes against it.
 */
export async function checkBundle(bundle: HostedBundle): Promise<Result<BundleCheck, string>> {
  let app: Awaited<ReturnType<typeof loadBundle>>;
  try {
    app = await loadBundle(bundle);
  } catch (e) {
    return err(`load: ${oneLine(e instanceof Error ? e.message : String(e))}`);
  }
  const secrets = await generateSecrets();
  let body: unknown;
  try {
    const res = await app.fetch(new Request("http://bundle.invalid/v1/manifest"), secrets);
    const text = await res.text();
    if (res.status !== 200) return err(`manifest: GET /v1/manifest answered ${res.status}: ${oneLine(text)}`);
    body = JSON.parse(text);
  } catch (e) {
    return err(`manifest: ${oneLine(e instanceof Error ? e.message : String(e))}`);
  }
  const manifest = Manifest.safeParse(body);
  if (!manifest.success) {
    const issue = manifest.error.issues[0];
    return err(`manifest: ${issue?.path.join(".") || "(body)"}: ${issue?.message ?? "invalid"}`);
  }
  const tasks = Object.values(manifest.data.splits).reduce((a, n) => a + n, 0);
  if (tasks === 0) return err("tasks: every split of the manifest is empty");
  const conformance = await runConformance(bundle);
  if (!conformance.ok) return conformance;
  return ok({ manifest: manifest.data, tasks, conformanceTests: conformance.value });
}
