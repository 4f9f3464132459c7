import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BUNDLE_MAX_BYTES } from "../../hub/hosted/bundle.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { hubClient, newTeam, playEpisode } from "./client.js";
import { appModule, oneModule, plainBundle, pushEnv } from "./hosted/push.js";

const hub = hubClient((r) => SELF.fetch(r));

describe("bundles the hub refuses at publish", () => {
  it("code that fails to start: a throw at import, a main module that exports no app", async () => {
    const a = await newTeam(hub);
    const thrown = await pushEnv(hub, a, oneModule('throw new Error("boom at import");'));
    expect(thrown.published.status).toBe(502);
    expect(thrown.published.body.code).toBe("env_failed_to_start");
    expect(thrown.published.body.detail).toContain("boom at import");
    const noApp = await pushEnv(hub, a, oneModule("export default 42;"));
    expect(noApp.published.body.code).toBe("env_failed_to_start");
    expect(noApp.published.body.detail).toContain("not a fetch handler");
    const none = await pushEnv(hub, a, oneModule("export const x = 1;"));
    expect(none.published.body.code).toBe("env_failed_to_start");
    expect((await hub.call("GET", "/healthz")).status).toBe(200);
  });

  it("a manifest whose key is not the one the hub made", async () => {
    const a = await newTeam(hub);
    const main = `import app from "./app.js";
export default { async fetch(request, env, ctx) {
  const res = await app.fetch(request, env, ctx);
  if (new URL(request.url).pathname !== "/v1/manifest") return res;
  const m = await res.json();
  return Response.json({ ...m, publicKey: { ...m.publicKey, x: "A".repeat(43) } });
} };`;
    const r = await pushEnv(hub, a, {
      mainModule: "main.js",
      modules: [{ name: "main.js", type: "esm", content: main }, appModule()],
      outbound: [],
    });
    expect(r.published.status).toBe(422);
    expect(r.published.body.code).toBe("bad_manifest");
    expect(r.published.body.issues).toEqual([{ path: "publicKey", message: "not the hub-generated key" }]);
  });

  it.each<[string, unknown, number, string]>([
    [
      "a module path with ..",
      { mainModule: "main.js", modules: [{ name: "../main.js", type: "esm", content: "" }] },
      422,
      "invalid_request",
    ],
    [
      "a wasm module",
      { mainModule: "main.js", modules: [{ name: "main.js", type: "wasm", content: "AA==" }] },
      422,
      "invalid_request",
    ],
    [
      "no module named main",
      { ...oneModule("export default {}"), mainModule: "missing.js" },
      422,
      "bundle_invalid",
    ],
    [
      "a text main module",
      { mainModule: "main.js", modules: [{ name: "main.js", type: "text", content: "x" }], outbound: [] },
      422,
      "bundle_invalid",
    ],
    [
      "two modules of one name",
      { ...oneModule(""), modules: [...oneModule("").modules, ...oneModule("").modules] },
      422,
      "bundle_invalid",
    ],
    [
      "a module under the hub's prefix",
      {
        ...oneModule(""),
        modules: [...oneModule("").modules, { name: "__edgegym/guard.js", type: "esm", content: "" }],
      },
      422,
      "bundle_invalid",
    ],
    [
      "the guard's name in code",
      oneModule("const __edgegym_tick = () => {}; export default { fetch: __edgegym_tick };"),
      422,
      "bundle_invalid",
    ],
    [
      "an import of the guard",
      oneModule('import * as g from "./x/../__edgegym/guard.js"; export default { fetch() {} };'),
      422,
      "bundle_invalid",
    ],
    [
      "dynamic import()",
      oneModule('export default { fetch() { return import("./main.js"); } };'),
      422,
      "bundle_invalid",
    ],
    ["a syntax error", oneModule("export default {"), 422, "bundle_invalid"],
    [
      "bad base64 in a data module",
      {
        ...oneModule(""),
        modules: [...oneModule("").modules, { name: "b.bin", type: "data", content: "not base64!" }],
      },
      422,
      "bundle_invalid",
    ],
    [
      "bad JSON in a json module",
      {
        ...oneModule(""),
        modules: [...oneModule("").modules, { name: "b.json", type: "json", content: "{" }],
      },
      422,
      "bundle_invalid",
    ],
    [
      "an outbound host with a scheme",
      { ...oneModule(""), outbound: ["https://api.example.com"] },
      422,
      "bundle_invalid",
    ],
    [
      "an outbound host with a port",
      { ...oneModule(""), outbound: ["api.example.com:8080"] },
      422,
      "bundle_invalid",
    ],
    [
      "more than 64 modules",
      {
        ...oneModule(""),
        modules: Array.from({ length: 65 }, (_, i) => ({ name: `m${i}.js`, type: "esm", content: "" })),
      },
      422,
      "invalid_request",
    ],
    [
      "modules over the size limit",
      {
        ...oneModule(""),
        modules: [
          ...oneModule("").modules,
          { name: "big.txt", type: "text", content: "x".repeat(BUNDLE_MAX_BYTES + 1) },
        ],
      },
      413,
      "bundle_too_large",
    ],
  ])("%s", async (_, bundle, status, code) => {
    const a = await newTeam(hub);
    const r = await pushEnv(hub, a, bundle);
    expect(r.published.status, JSON.stringify(r.published.body).slice(0, 300)).toBe(status);
    expect(r.published.body.code).toBe(code);
    // Nothing was published.
    expect((await hub.call("GET", `/v1/envs/${a.team}/${r.name}/versions/1.0.0`)).status).toBe(404);
  });

  it("a publish body over the cap, and a bundle alongside a built-in", async () => {
    const a = await newTeam(hub);
    const over = await pushEnv(hub, a, {
      ...oneModule(""),
      modules: [{ name: "big.txt", type: "text", content: "x".repeat(17 * 1024 * 1024) }],
    });
    expect(over.published.status).toBe(413);
    expect(over.published.body.code).toBe("body_too_large");
    const both = await hub.call("POST", `/v1/envs/${a.team}/${over.name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", builtin: "calculator", bundle: oneModule("") },
    });
    expect(both.status).toBe(422);
    expect(both.body.code).toBe("invalid_request");
  });

  it("the same version twice: 409, and the first keeps its keys", async () => {
    const a = await newTeam(hub);
    const { name, ref, published } = await pushEnv(hub, a, plainBundle());
    expect(published.status).toBe(201);
    const before = await hub.call("GET", `/v1/envs/${ref}/v1/manifest`);
    const again = await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", bundle: plainBundle() },
    });
    expect([again.status, again.body.code]).toEqual([409, "conflict"]);
    // The loser's secrets were never stored: the version's isolate still signs with the first key.
    const s = await hub.call("POST", `/v1/envs/${ref}/v1/sessions`, { body: { split: "train", index: 1 } });
    const played = await playEpisode(hub, undefined, `/v1/envs/${ref}`, s.body.session, true);
    const verified = await verifyReceipt(played.receipt, before.body.publicKey);
    expect(verified.ok).toBe(true);
  });
});
