import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { SLUG_REGEX } from "../../shared/env-ref.js";
import { UserError } from "./run-io.js";

/** The template `init` copies: a complete env named `my-env`, tested in this repo like any other. */
export const TEMPLATE_DIR = fileURLToPath(new URL("../../environments/kit/template/", import.meta.url));
const TEMPLATE_NAME = "my-env";
const TEMPLATE_IDENT = "myEnv";

/** `my-search` → `mySearch`: the exported constant's name. */
const identifier = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Where `init <name>` writes by default: `environments/<name>` in an edgegym checkout (so `npm test`
 * runs its conformance test with the rest), else `<name>` in the current folder.
 */
export function defaultInitDir(name: string, cwd = process.cwd()): string {
  const pkg = join(cwd, "package.json");
  const inCheckout =
    existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: unknown }).name === "edgegym";
  return inCheckout ? join(cwd, "environments", name) : join(cwd, name);
}

/** Copies the template into `dir` with the env's name and identifier in place of the template's. */
export async function initEnvironment(name: string, dir: string): Promise<string[]> {
  if (!SLUG_REGEX.test(name) || !/^[a-z]/.test(name) || name.endsWith("-"))
    throw new UserError(`env name ${JSON.stringify(name)}: use a-z, 0-9 and -, starting with a letter`);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new UserError(`${dir} exists and is not empty; choose another --dir`);
  await cp(TEMPLATE_DIR, dir, { recursive: true });
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  for (const file of files.filter((f) => f.endsWith(".ts") || f.endsWith(".md"))) {
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replaceAll(TEMPLATE_NAME, name).replaceAll(TEMPLATE_IDENT, identifier(name)));
  }
  return files.map((f) => relative(dir, f)).sort();
}

/** `edgegym init <name> [--dir <dir>]`: a new env from the template, ready for `npm test` and `push`. */
export function registerInit(program: Command): void {
  program
    .command("init <name>")
    .description("Write a new environment from the template (tools, tasks, scorer, expert, conformance test)")
    .option(
      "--dir <dir>",
      "where to write it (default environments/<name> in an edgegym checkout, else ./<name>)",
    )
    .action(async (name: string, o: { dir?: string }) => {
      const dir = resolve(o.dir ?? defaultInitDir(name));
      const files = await initEnvironment(name, dir);
      console.log(`wrote ${name} in ${relative(process.cwd(), dir) || "."}: ${files.join(", ")}`);
      console.log(`test it: npx vitest run ${relative(process.cwd(), join(dir, "conformance.test.ts"))}`);
      console.log(
        `push it: npx edgegym push ${relative(process.cwd(), dir) || "."} --env <team>/${name} --version 1.0.0`,
      );
    });
}
