import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * A user's own project with edgegym installed, outside this checkout: `node_modules/edgegym` is the
 * checkout (as installing it would link it), beside the zod and vitest an env's own files import.
 */
export async function userProject(): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), "edgegym-project-"));
  await mkdir(join(project, "node_modules"));
  for (const [name, target] of [
    ["edgegym", ROOT],
    ["zod", join(ROOT, "node_modules/zod")],
    ["vitest", join(ROOT, "node_modules/vitest")],
  ] as const)
    await symlink(target, join(project, "node_modules", name), "dir");
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "my-project", type: "module" }));
  return project;
}
