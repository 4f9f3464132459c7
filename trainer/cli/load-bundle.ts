import { build, type Plugin } from "esbuild";
import type { HostedBundle } from "../../shared/hosted.js";

/** What a bundle's main module must export: a fetch handler, as a Hono app is. */
export type FetchHandler = {
  fetch(request: Request, env: Record<string, unknown>, ctx?: unknown): Response | Promise<Response>;
};

/**
 * Resolves a bundle's `./<name>` imports to its own modules with the loaders workerd gives them:
 * `json` parsed, `text` a string, `data` an ArrayBuffer.
 */
function bundleModules(bundle: HostedBundle): Plugin {
  const byName = new Map(bundle.modules.map((m) => [m.name, m]));
  return {
    name: "edgegym-bundle-modules",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const name = args.path.replace(/^\.\//, "");
        if (!byName.has(name)) return { errors: [{ text: `the bundle has no module ${args.path}` }] };
        return { path: name, namespace: "bundle" };
      });
      b.onLoad({ filter: /.*/, namespace: "bundle" }, (args) => {
        const m = byName.get(args.path);
        if (!m) return { errors: [{ text: `the bundle has no module ${args.path}` }] };
        if (m.type === "json") return { contents: m.content, loader: "json" };
        if (m.type === "text") return { contents: m.content, loader: "text" };
        if (m.type === "data") {
          const b64 = JSON.stringify(m.content);
          return {
            contents: `export default Uint8Array.from(atob(${b64}), (c) => c.charCodeAt(0)).buffer;`,
            loader: "js",
          };
        }
        return { contents: m.content, loader: "js" };
      });
    },
  };
}

/**
 * A bundle's app, loaded into this process: the main module exactly as pushed, linked to its modules
 * by esbuild and imported from a `data:` URL (nothing written to disk). Throws what its import throws,
 * or a TypeError when its default export is not a fetch handler.
 */
export async function loadBundle(bundle: HostedBundle): Promise<FetchHandler> {
  const out = await build({
    stdin: { contents: `export { default } from "./${bundle.mainModule}";`, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    logLevel: "silent",
    plugins: [bundleModules(bundle)],
  });
  const code = out.outputFiles[0]?.text ?? "";
  const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)) as {
    default?: unknown;
  };
  const app = mod.default as Partial<FetchHandler> | undefined;
  if (typeof app?.fetch !== "function")
    throw new TypeError(
      "the main module's default export is not a fetch handler (export default createEnvironmentApp(env))",
    );
  return app as FetchHandler;
}
