import { inject } from "vitest";
import type { HostedBundle } from "../../../shared/hosted.js";
import { type HubClient, uniqueName } from "../client.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** guess-number built for workerd as one ES module, as `edgegym push` bundles an env (build-bundles.ts). */
    hostedApp: string;
    /** The built-in search env (generated world, in-memory BM25) built the same way. */
    hostedSearch: string;
  }
}

/** The guess-number env as one built ES module (tests/hub/hosted/build-bundles.ts). */
export const appModule = () => ({ name: "app.js", type: "esm" as const, content: inject("hostedApp") });

/** A bundle of one ES module, `main.js`, holding `content`. */
export const oneModule = (content: string): HostedBundle => ({
  mainModule: "main.js",
  modules: [{ name: "main.js", type: "esm", content }],
  outbound: [],
});

/** A bundle whose main module is `app.js` itself. */
export const plainBundle = (): HostedBundle => ({
  mainModule: "app.js",
  modules: [appModule()],
  outbound: [],
});

/**
 * A bundle whose main module serves guess-number but runs `hostile` (the body of an async function
 * of `request` and `env`) for `POST /v1/sessions`: publishing passes (its manifest is the env's),
 * and the hostile code runs when a session is asked for through the gateway. `/mcp?echo` answers
 * the caller key the hub named.
 */
export function hostileBundle(hostile: string, prelude = ""): HostedBundle {
  const main = `import app from "./app.js";
${prelude}
async function hostile(request, env) { ${hostile} }
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/v1/sessions") return hostile(request, env);
    // Who the kit's MCP bounds would count this session against.
    if (url.pathname === "/mcp" && url.searchParams.has("echo")) return Response.json({ client: request.headers.get("cf-connecting-ip") });
    return app.fetch(request, env, ctx);
  },
};`;
  return {
    mainModule: "main.js",
    modules: [{ name: "main.js", type: "esm", content: main }, appModule()],
    outbound: [],
  };
}

/** Creates an env owned by `owner` and publishes `bundle` as its `version`. */
export async function pushEnv(
  hub: HubClient,
  owner: { team: string; token: string },
  bundle: HostedBundle | unknown,
  version = "1.0.0",
  visibility: "public" | "private" = "public",
) {
  const name = uniqueName("hosted");
  const e = await hub.call("POST", "/v1/envs", {
    token: owner.token,
    body: { owner: owner.team, name, visibility, description: "a pushed env" },
  });
  if (e.status !== 201) throw new Error(`env: ${e.status} ${JSON.stringify(e.body)}`);
  const published = await hub.call("POST", `/v1/envs/${owner.team}/${name}/versions`, {
    token: owner.token,
    body: { version, bundle },
  });
  return { name, ref: `${owner.team}/${name}@${version}`, published };
}
