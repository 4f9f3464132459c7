import { readFileSync } from "node:fs";
import { generateSecrets } from "../../environments/kit/index.js";
import { HostedBundle } from "../../shared/hosted.js";
import { describeConformance } from "../../tests/conformance/index.js";
import { loadBundle } from "./load-bundle.js";

/**
 * The conformance suite against a pushed bundle's app in-process, with fresh secrets as the hub's
 * bindings. `edgegym push` runs this file through vitest with `EDGEGYM_PUSH_BUNDLE` naming the
 * bundle's JSON; it is not a test of its own (no `.test.ts`), so `npm test` never collects it.
 */
const file = process.env.EDGEGYM_PUSH_BUNDLE;
if (!file) throw new Error("EDGEGYM_PUSH_BUNDLE is not set (edgegym push sets it)");

describeConformance("the bundle in-process", async () => {
  const app = await loadBundle(HostedBundle.parse(JSON.parse(readFileSync(file, "utf8"))));
  const secrets = await generateSecrets();
  return {
    baseUrl: "http://bundle.invalid",
    fetch: async (url, init) => app.fetch(new Request(url, init), secrets),
    secrets,
  };
});
