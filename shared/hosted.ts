import { z } from "@hono/zod-openapi";

/**
 * The wire shapes of hosted environments: an env's code pushed to the hub (`edgegym push`) and run
 * there in a sandboxed isolate of its own. The CLI that bundles and the hub that stores, checks and
 * serves it share these shapes.
 */

/**
 * How a module's `content` is read: `esm` (an ES module's source text), `text` (imported as a
 * string), `json` (imported as parsed JSON, sent as text) and `data` (imported as an ArrayBuffer,
 * sent base64).
 */
export const BundleModuleType = z.enum(["esm", "text", "json", "data"]);
export type BundleModuleType = z.infer<typeof BundleModuleType>;

/** A module path as the bundle's `import`s name it: relative, `/`-separated, no `..`. */
export const ModuleName = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._/-]+$/,
    "a relative module path without . or .. segments",
  );

export const BundleModule = z
  .object({
    name: ModuleName,
    type: BundleModuleType,
    /** UTF-8 text for `esm`, `text` and `json`; base64 for `data`. */
    content: z.string(),
  })
  .strict()
  .openapi("BundleModule");
export type BundleModule = z.infer<typeof BundleModule>;

/**
 * What `edgegym push` uploads: one ES module whose default export is a fetch handler serving the
 * env's base URL (`/v1/...`, `/mcp`, OpenEnv's routes), plus the modules it imports. `outbound`
 * lists the only hosts its `fetch` may reach; empty (the default) means no network at all.
 */
export const HostedBundle = z
  .object({
    mainModule: ModuleName,
    modules: z.array(BundleModule).min(1).max(64),
    outbound: z.array(z.string().min(1).max(253)).max(16).default([]),
  })
  .strict()
  .openapi("HostedBundle");
export type HostedBundle = z.infer<typeof HostedBundle>;

/** What the hub tells readers about a hosted version: its bundle's hash and sizes, never its secrets. */
export const HostedInfo = z
  .object({
    bundleHash: z.string(),
    bytes: z.number().int().nonnegative(),
    mainModule: ModuleName,
    modules: z.array(z.object({ name: ModuleName, type: BundleModuleType, bytes: z.number().int() })),
    outbound: z.array(z.string()),
  })
  .openapi("HostedInfo");
export type HostedInfo = z.infer<typeof HostedInfo>;

/** `GET …/versions/{version}/source`: the hosted bundle's modules as stored, for reading what runs. */
export const HostedSource = z
  .object({ mainModule: ModuleName, modules: z.array(BundleModule) })
  .openapi("HostedSource");
export type HostedSource = z.infer<typeof HostedSource>;
