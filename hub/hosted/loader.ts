import { EdgegymError } from "../../shared/errors.js";
import type { HostedBundle, HostedSource } from "../../shared/hosted.js";
import { hubDb } from "../db.js";
import { type HubBindings, type LoaderCode, type LoaderModule, positiveNumber } from "../env.js";
import { GUARD_MODULE } from "./instrument.js";
import { gateFor } from "./outbound.js";
import { ENTRY_MODULE, entrySource, guardSource, HOSTED_TICKS } from "./sandbox-modules.js";
import { readRun, readSecrets } from "./store.js";

/**
 * A hosted version as the gateway names it: which env and version, and which bundle it runs. At
 * publish, before anything is stored, `unstored` is the isolate's code itself, under an id of its
 * own that no later load reuses (the publish's calls share it).
 */
export type HostedRef = {
  envId: number;
  version: string;
  bundleHash: string;
  unstored?: { id: string; code: LoaderCode };
};

/** Compatibility of every hosted isolate: the hub's own, so an env that runs under the hub runs here. */
const COMPATIBILITY_DATE = "2026-10-01";
const COMPATIBILITY_FLAGS = ["nodejs_compat"];
/** CPU ms one request may use where the runtime enforces it (Cloudflare), unless `HUB_HOSTED_CPU_MS` says otherwise. */
export const HOSTED_CPU_MS = 1_000;

const ticksOf = (bindings: HubBindings) =>
  Math.floor(positiveNumber(bindings.HUB_HOSTED_TICKS, HOSTED_TICKS));

function decodeBase64(text: string): ArrayBuffer {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function loaderModule(m: HostedSource["modules"][number]): LoaderModule {
  switch (m.type) {
    case "esm":
      return { js: m.content };
    case "text":
      return { text: m.content };
    case "json":
      return { json: JSON.parse(m.content) };
    case "data":
      return { data: decodeBase64(m.content) };
  }
}

/**
 * The isolate's code: the instrumented modules, the guard and the entry in front of the pushed main
 * module, the version's own secrets as its only bindings (never the hub's D1, bucket or secrets),
 * and no network (`globalOutbound: null`) unless the bundle declares hosts: then every `fetch` goes
 * through the hub's outbound gate (hub/hosted/outbound.ts).
 */
export function sandboxCode(
  run: HostedBundle,
  secrets: Record<string, string>,
  bindings: HubBindings,
): LoaderCode {
  const ticks = ticksOf(bindings);
  const modules: Record<string, LoaderModule> = {
    [ENTRY_MODULE]: { js: entrySource(run.mainModule, ticks) },
    [GUARD_MODULE]: { js: guardSource(ticks) },
  };
  for (const m of run.modules) modules[m.name] = loaderModule(m);
  return {
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    mainModule: ENTRY_MODULE,
    modules,
    env: { ...secrets },
    globalOutbound: run.outbound.length === 0 ? null : outboundGate(run.outbound),
    limits: { cpuMs: positiveNumber(bindings.HUB_HOSTED_CPU_MS, HOSTED_CPU_MS) },
  };
}

function outboundGate(hosts: string[]): unknown {
  const gate = gateFor(hosts);
  if (gate === undefined) {
    throw new EdgegymError(
      "not_configured",
      "this hub has no outbound gate, so it runs no env that declares hosts",
    );
  }
  return gate;
}

function loader(bindings: HubBindings) {
  if (!bindings.LOADER) {
    throw new EdgegymError(
      "not_configured",
      "this hub has no LOADER binding, so it runs no hosted environments",
    );
  }
  return bindings.LOADER;
}

/**
 * Sends `request` to the hosted version's isolate. The Worker Loader keeps an isolate per id and
 * builds one (reading the bundle from R2 and the secrets from D1) only when it has none: the id
 * names the env, version, bundle and guard budget, so a different budget is a different isolate.
 */
export function callHosted(ref: HostedRef, bindings: HubBindings, request: Request): Promise<Response> {
  const { unstored } = ref;
  const stub = unstored
    ? loader(bindings).get(unstored.id, async () => unstored.code)
    : loader(bindings).get(`${ref.envId}@${ref.version}/${ref.bundleHash}/${ticksOf(bindings)}`, async () => {
        const [run, secrets] = await Promise.all([
          readRun(bindings, ref.bundleHash),
          readSecrets(hubDb(bindings), bindings, ref.envId, ref.version),
        ]);
        return sandboxCode(run, secrets, bindings);
      });
  return entered(stub.getEntrypoint().fetch(request));
}

/** The isolate's failures as the hub's problems: it would not start, ran out of CPU, or crashed. */
async function entered(answer: Promise<Response>): Promise<Response> {
  try {
    return await answer;
  } catch (e) {
    if (e instanceof EdgegymError) throw e;
    const why = (e instanceof Error ? e.message : String(e)).slice(0, 500);
    if (/failed to start|incorrect type for map entry/i.test(why)) {
      throw new EdgegymError("env_failed_to_start", `the environment's code did not start: ${why}`);
    }
    if (/cpu/i.test(why) && /exceed|limit/i.test(why)) {
      throw new EdgegymError("env_cpu_exceeded", `the environment ran past its CPU limit: ${why}`);
    }
    throw new EdgegymError("upstream_bad_response", `the environment's code failed: ${why}`);
  }
}
