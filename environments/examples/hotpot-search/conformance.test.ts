import { describeConformance } from "edgegym/conformance";
import { serveOnNode } from "edgegym/conformance/node";
import { generateSecrets } from "edgegym/kit";
import { beforeAll, describe, expect, it } from "vitest";
import type { HostedBundle } from "../../../shared/hosted.js";
import { bundleEnvironment, MAIN_MODULE } from "../../../trainer/cli/bundle.js";
import { type FetchHandler, loadBundle } from "../../../trainer/cli/load-bundle.js";
import { buildCorpus } from "./build-corpus.js";
import corpus from "./corpus.json";
import { hotpotSearch } from "./index.js";

describeConformance("hotpot-search on Node", () => serveOnNode([hotpotSearch]));

// What `edgegym push` uploads, loaded in this process as the hub would run it: the same suite.
let bundle: HostedBundle;
let app: FetchHandler;
beforeAll(async () => {
  const bundled = await bundleEnvironment(import.meta.dirname);
  if (!bundled.ok) throw new Error(bundled.error);
  bundle = bundled.value;
  app = await loadBundle(bundle);
}, 60_000);

describeConformance("hotpot-search bundled, in-process", async () => {
  const secrets = await generateSecrets();
  return {
    baseUrl: "http://bundle.invalid",
    fetch: async (url, init) => app.fetch(new Request(url, init), secrets),
    secrets,
  };
});

describe("hotpot-search's bundle", () => {
  it("ships the corpus as a JSON module beside the code, not inside it", () => {
    expect(bundle.mainModule).toBe(MAIN_MODULE);
    expect(bundle.modules.map((m) => [m.name, m.type])).toEqual([
      [MAIN_MODULE, "esm"],
      ["corpus.json", "json"],
    ]);
    const main = bundle.modules[0]?.content ?? "";
    expect(main).toContain('from "./corpus.json"');
    expect(main).not.toContain(corpus.passages[0]?.text.slice(0, 60));
  });

  it("has corpus.json as build-corpus.ts makes it from the fixture", () => {
    expect(corpus).toEqual(buildCorpus());
  });
});
