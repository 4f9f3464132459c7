import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";

/** Builds the hosted env's module once in Node (the workers project's globalSetup); workerd tests push it. */
export async function bundleApp(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    minify: true,
    write: false,
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error(`esbuild wrote nothing for ${entry}`);
  return file.text;
}

export default async function setup(project: TestProject): Promise<void> {
  const entry = (file: string) => fileURLToPath(new URL(file, import.meta.url));
  project.provide("hostedApp", await bundleApp(entry("./guess-number-app.ts")));
  project.provide("hostedSearch", await bundleApp(entry("./search-app.ts")));
}
