import { contentHash } from "../../shared/content-hash.js";
import { EdgegymError } from "../../shared/errors.js";
import type { BundleModule, HostedBundle, HostedInfo } from "../../shared/hosted.js";
import type { Result } from "../../shared/result.js";
import type { HubBindings } from "../env.js";
import { instrumentModule, RESERVED_PREFIX } from "./instrument.js";
import { checkOutboundHost } from "./outbound.js";

/** Most bytes a hosted bundle's modules may hold together (decoded: text as UTF-8, `data` as bytes). */
export const BUNDLE_MAX_BYTES = 10 * 1024 * 1024;
/**
 * The publish route's body cap: the modules' bytes as JSON, with room for base64's third more on
 * `data` modules and for escaped characters.
 */
export const PUBLISH_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A checked bundle: what readers are told (`info`) and the bundle as the sandbox runs it. */
export type CheckedBundle = { info: HostedInfo; run: HostedBundle };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const encoder = new TextEncoder();

function invalid(path: string, message: string): { ok: false; error: EdgegymError } {
  return {
    ok: false,
    error: new EdgegymError("bundle_invalid", `the bundle is refused: ${message}`, {
      issues: [{ path, message }],
    }),
  };
}

function moduleBytes(m: BundleModule): number {
  if (m.type !== "data") return encoder.encode(m.content).length;
  const pad = m.content.endsWith("==") ? 2 : m.content.endsWith("=") ? 1 : 0;
  return (m.content.length / 4) * 3 - pad;
}

/**
 * Checks a pushed bundle against the hub's limits and rules, never trusting the client that built
 * it: unique module names outside the hub's reserved prefix, a main module that is one of its ES
 * modules, JSON that parses, base64 that decodes, at most `BUNDLE_MAX_BYTES` in all, and every ES
 * module instrumented with the CPU guard (hub/hosted/instrument.ts). The bundle hash is the content
 * hash of the bundle as pushed. Each `outbound` host must pass the endpoint rules (as a bare host
 * name, lowercased): they are the only hosts the outbound gate lets the env reach.
 */
export async function checkBundle(
  bundle: HostedBundle,
  bindings: HubBindings,
): Promise<Result<CheckedBundle, EdgegymError>> {
  const names = new Set<string>();
  let total = 0;
  const run: BundleModule[] = [];
  for (const [i, m] of bundle.modules.entries()) {
    const path = `bundle.modules.${i}`;
    if (names.has(m.name)) return invalid(`${path}.name`, `two modules are named ${m.name}`);
    names.add(m.name);
    if (m.name.startsWith(RESERVED_PREFIX)) {
      return invalid(`${path}.name`, `${m.name}: module names starting ${RESERVED_PREFIX} are the hub's`);
    }
    if (m.type === "data" && !BASE64.test(m.content)) {
      return invalid(`${path}.content`, `${m.name} is a data module whose content is not base64`);
    }
    if (m.type === "json") {
      try {
        JSON.parse(m.content);
      } catch {
        return invalid(`${path}.content`, `${m.name} is a json module whose content does not parse`);
      }
    }
    total += moduleBytes(m);
    if (total > BUNDLE_MAX_BYTES) {
      return {
        ok: false,
        error: new EdgegymError(
          "bundle_too_large",
          `the bundle's modules hold more than ${BUNDLE_MAX_BYTES} bytes (the hub's limit)`,
        ),
      };
    }
    if (m.type !== "esm") {
      run.push(m);
      continue;
    }
    const instrumented = instrumentModule(m.content, m.name);
    if (!instrumented.ok) return invalid(`${path}.content`, instrumented.error);
    run.push({ ...m, content: instrumented.value });
  }
  const main = bundle.modules.find((m) => m.name === bundle.mainModule);
  if (!main) return invalid("bundle.mainModule", `no module is named ${bundle.mainModule}`);
  if (main.type !== "esm") return invalid("bundle.mainModule", `${main.name} is not an esm module`);
  const outbound: string[] = [];
  for (const [i, host] of bundle.outbound.entries()) {
    const checkedHost = checkOutboundHost(host, bindings);
    if (!checkedHost.ok) return invalid(`bundle.outbound.${i}`, checkedHost.error);
    outbound.push(checkedHost.value);
  }
  return {
    ok: true,
    value: {
      info: {
        bundleHash: await contentHash(bundle),
        bytes: total,
        mainModule: bundle.mainModule,
        modules: bundle.modules.map((m) => ({ name: m.name, type: m.type, bytes: moduleBytes(m) })),
        outbound,
      },
      run: { mainModule: bundle.mainModule, modules: run, outbound },
    },
  };
}
