/// <reference path="./text-modules.d.ts" />

import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import bundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js";
import type { AppEnv } from "../env.js";

/** Where the hub serves Scalar's script; the page loads it from here, never from a CDN. */
export const SCALAR_SCRIPT_PATH = "/v1/reference/scalar.js";

/**
 * The API reference at `/v1/reference`: Scalar's page over `/v1/openapi.json`, with the pinned
 * `@scalar/api-reference` standalone bundle (imported as text through wrangler.toml's `Text` rule)
 * served by the hub itself, and no web fonts fetched, so it renders offline.
 */
export function registerReference(app: OpenAPIHono<AppEnv>): void {
  app.get(
    "/v1/reference",
    Scalar({
      url: "/v1/openapi.json",
      pageTitle: "edgegym hub API",
      cdn: SCALAR_SCRIPT_PATH,
      withDefaultFonts: false,
    }),
  );
  app.get(SCALAR_SCRIPT_PATH, (c) =>
    c.body(bundle, 200, {
      "content-type": "text/javascript; charset=utf-8",
      // The bundle changes only with the pinned dependency; a day of caching keeps reloads fast.
      "cache-control": "public, max-age=86400",
    }),
  );
}
