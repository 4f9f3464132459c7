import { fileURLToPath } from "node:url";
import { calculator } from "../../environments/calculator/index.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { listen } from "../../environments/node/listen.js";
import { bundleApp } from "../hub/hosted/build-bundles.js";

// biome-ignore lint/suspicious/noExplicitAny: the bench reads a few known fields of hub replies
type Call = (method: string, path: string, token?: string, body?: unknown) => Promise<Record<string, any>>;
type Quantiles = (values: number[]) => { n: number; p50Ms: number; p99Ms: number };

/**
 * One env (the procedural calculator) three ways through the same hub's gateway: a built-in served
 * in-process, pushed as a hosted bundle (its own isolate), and a URL env served on Node. Cold start is
 * the first gateway call to a freshly published version (for hosted: the isolate is built then, from
 * R2 and D1); steps are interleaved, so load from other processes hits the three alike.
 */
export async function hostedLatency(opts: {
  call: Call;
  quantiles: Quantiles;
  owner: string;
  envs: { builtin: string; hosted: string; url: string };
  versions: number;
  requests: number;
}) {
  const { call, quantiles, owner, envs } = opts;
  const app = await bundleApp(fileURLToPath(new URL("./hosted-calculator.ts", import.meta.url)));
  const bundle = { mainModule: "app.js", modules: [{ name: "app.js", type: "esm", content: app }] };
  const node = await listen(createEnvironmentsHost([calculator]), await generateSecrets());
  try {
    const sources = {
      builtin: { builtin: "calculator" },
      hosted: { bundle },
      url: { endpoint: `${node.url}/envs/calculator` },
    };
    const kinds = ["builtin", "hosted", "url"] as const;
    const cold = { builtin: [] as number[], hosted: [] as number[], url: [] as number[] };
    const publishMs: number[] = [];
    for (let v = 0; v < opts.versions; v++) {
      for (const kind of kinds) {
        const version = `1.0.${v}`;
        const t = performance.now();
        await call("POST", `/v1/envs/bench/${envs[kind]}/versions`, owner, { version, ...sources[kind] });
        if (kind === "hosted") publishMs.push(performance.now() - t);
        const t0 = performance.now();
        await call("GET", `/v1/envs/bench/${envs[kind]}@${version}/v1/manifest`);
        cold[kind].push(performance.now() - t0);
      }
    }
    const steps = { builtin: [] as number[], hosted: [] as number[], url: [] as number[] };
    const step = async (kind: (typeof kinds)[number]) => {
      const base = `/v1/envs/bench/${envs[kind]}@1.0.0`;
      const s = await call("POST", `${base}/v1/sessions`, undefined, { split: "train", index: 0 });
      return { base, body: { session: s.session, action: { content: "#### 1" } } };
    };
    const started = { builtin: await step("builtin"), hosted: await step("hosted"), url: await step("url") };
    for (let i = 0; i < opts.requests; i++) {
      for (const kind of kinds) {
        const { base, body } = started[kind];
        const t = performance.now();
        await call("POST", `${base}/v1/step`, owner, body);
        steps[kind].push(performance.now() - t);
      }
    }
    return {
      env: "calculator (procedural), built-in in-process vs hosted bundle vs URL env on Node",
      bundleBytes: new TextEncoder().encode(app).length,
      hostedPublish: quantiles(publishMs),
      coldStart: {
        builtin: quantiles(cold.builtin),
        hosted: quantiles(cold.hosted),
        url: quantiles(cold.url),
      },
      step: { builtin: quantiles(steps.builtin), hosted: quantiles(steps.hosted), url: quantiles(steps.url) },
    };
  } finally {
    await node.close();
  }
}
