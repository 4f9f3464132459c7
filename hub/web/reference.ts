/// <reference path="./text-modules.d.ts" />

import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import bundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js";
import type { AppEnv } from "../env.js";
import { pageHeaders } from "./page-headers.js";

/** Where the hub serves Scalar's script; the page loads it from here, never from a CDN. */
export const SCALAR_SCRIPT_PATH = "/v1/reference/scalar.js";

/**
 * The API reference at `/v1/reference`: Scalar's page over `/v1/openapi.json`, with the pinned
 * `@scalar/api-reference` standalone bundle (imported as text through wrangler.toml's `Text` rule)
 * served by the hub itself, and no web fonts fetched, so it renders offline.
 */
export function registerReference(app: OpenAPIHono<AppEnv>): void {
  const scalar = Scalar<AppEnv>({
    url: "/v1/openapi.json",
    pageTitle: "edgegym hub API",
    cdn: SCALAR_SCRIPT_PATH,
    withDefaultFonts: false,
  });
  app.get("/v1/reference", async (c, next) => {
    const res = await scalar(c, next);
    if (!res) throw new Error("Scalar answered no page");
    const page = await res.text();
    const out = new Response(page, res);
    pageHeaders(out, await referencePolicy(page));
    return out;
  });
  app.get(SCALAR_SCRIPT_PATH, (c) =>
    c.body(bundle, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "x-content-type-options": "nosniff",
      // The bundle changes only with the pinned dependency; a day of caching keeps reloads fast.
      "cache-control": "public, max-age=86400",
    }),
  );
}

/**
 * What Scalar's page needs and nothing more: its script from the hub and the page's own inline
 * start-up script by hash (no `'unsafe-inline'` for scripts, and the bundle uses no `eval`); inline
 * styles, which the bundle injects at run time; the OpenAPI document and "try it" calls to the hub
 * only; never framed.
 */
async function referencePolicy(page: string): Promise<string> {
  const hashes: string[] = [];
  for (const m of page.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(m[1] ?? "")),
    );
    hashes.push(`'sha256-${btoa(String.fromCharCode(...digest))}'`);
  }
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(" ")}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}
