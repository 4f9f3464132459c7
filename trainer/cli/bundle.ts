import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, relative, resolve, sep } from "node:path";
import { build, type Plugin } from "esbuild";
import { type BundleModule, type BundleModuleType, HostedBundle, ModuleName } from "../../shared/hosted.js";
import { err, ok, type Result } from "../../shared/result.js";

/**
 * `edgegym push`'s bundler: the env's worker entry as one ES module for workerd (esbuild, with the
 * conditions and main fields wrangler uses), plus each data file the env imports from its own folder
 * as a module of its own (`json`, `text` or `data`), so a corpus ships beside the code rather than
 * inside it and the env card can list it by size. Not minified: the env card shows what runs.
 */

/** The main module's name in the bundle. */
export const MAIN_MODULE = "worker.js";

/** How an imported data file is loaded, by extension; other extensions are code (bundled inline). */
const DATA_TYPES: Record<string, Exclude<BundleModuleType, "esm">> = {
  ".json": "json",
  ".txt": "text",
  ".md": "text",
  ".csv": "text",
  ".bin": "data",
};

/** The bytes a module takes as the hub stores it (data modules as their decoded bytes). */
export const moduleBytes = (m: BundleModule): number =>
  m.type === "data" ? Buffer.from(m.content, "base64").length : Buffer.byteLength(m.content, "utf8");

/** Collects the data files the env imports from inside `root`, leaving each import as `./<name>`. */
function dataModules(root: string, found: Map<string, BundleModule>, problems: string[]): Plugin {
  return {
    name: "edgegym-data-modules",
    setup(b) {
      b.onResolve({ filter: /\.(json|txt|md|csv|bin)$/ }, async (args) => {
        if (args.kind !== "import-statement" || args.importer.includes(`${sep}node_modules${sep}`)) return;
        const path = resolve(args.resolveDir, args.path);
        const name = relative(root, path).split(sep).join("/");
        const type = DATA_TYPES[extname(path)];
        if (!type) return;
        if (name.startsWith("../")) {
          problems.push(`${args.path} (imported by ${relative(root, args.importer)}) is outside ${root}`);
          return { path: args.path, external: true };
        }
        if (!ModuleName.safeParse(name).success) {
          problems.push(`data file ${name}: module names are [A-Za-z0-9._/-] without . or .. segments`);
          return { path: args.path, external: true };
        }
        if (!found.has(name)) {
          const bytes = await readFile(path);
          const content = type === "data" ? bytes.toString("base64") : bytes.toString("utf8");
          if (type === "json") JSON.parse(content);
          found.set(name, { name, type, content });
        }
        return { path: `./${name}`, external: true };
      });
    },
  };
}

/**
 * Bundles `<dir>/<entry>` into a `HostedBundle`, or says in one line why it can't. `outbound` names
 * the only hosts the env's `fetch` may reach on the hub (none by default).
 */
export async function bundleEnvironment(
  dir: string,
  entry = "worker.ts",
  outbound: readonly string[] = [],
): Promise<Result<HostedBundle, string>> {
  const root = resolve(dir);
  const entryPath = join(root, entry);
  if (!existsSync(entryPath))
    return err(
      `no ${entry} in ${dir} (the worker entry: export default createEnvironmentApp(env); edgegym init writes one)`,
    );
  const found = new Map<string, BundleModule>();
  const problems: string[] = [];
  let main: string;
  try {
    const out = await build({
      entryPoints: [entryPath],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["browser", "module", "main"],
      target: "es2022",
      logLevel: "silent",
      legalComments: "none",
      // The hub's isolates have nodejs_compat, as its own Worker does: Node's built-ins stay imports.
      external: ["node:*"],
      plugins: [dataModules(root, found, problems)],
    });
    main = out.outputFiles[0]?.text ?? "";
  } catch (e) {
    const first = (e as { errors?: { text: string; location?: { file: string; line: number } | null }[] })
      .errors?.[0];
    if (!first) return err(`bundling ${entry} failed: ${e instanceof Error ? e.message : String(e)}`);
    const where = first.location ? `${first.location.file}:${first.location.line}: ` : "";
    return err(`bundling ${entry} failed: ${where}${first.text}`);
  }
  if (problems.length > 0) return err(`bundling ${entry}: ${problems.join("; ")}`);
  const parsed = HostedBundle.safeParse({
    mainModule: MAIN_MODULE,
    modules: [{ name: MAIN_MODULE, type: "esm", content: main }, ...found.values()],
    outbound,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return err(
      `the bundle is not one the hub takes: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
    );
  }
  return ok(parsed.data);
}
