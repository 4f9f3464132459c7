import { createEnvironmentsHost } from "../../environments/host.js";
import { EdgegymError, Problem } from "../../shared/errors.js";
import { Manifest } from "../../shared/protocol.js";
import type { Result } from "../../shared/result.js";

/** Where a version's edgegym/v1 surface lives: a built-in served in-process, or an external URL. */
export type Upstream = { kind: "builtin"; name: string } | { kind: "endpoint"; url: string };

type Fetcher = (request: Request) => Promise<Response>;

let host: ReturnType<typeof createEnvironmentsHost> | undefined;

/** The built-in environments, created once per isolate. */
export function builtinHost(): ReturnType<typeof createEnvironmentsHost> {
  host ??= createEnvironmentsHost();
  return host;
}

export function upstreamOf(row: { endpoint: string | null; builtin: string | null }): Upstream {
  if (row.builtin) return { kind: "builtin", name: row.builtin };
  return { kind: "endpoint", url: row.endpoint ?? "" };
}

/**
 * Sends `init` to `<base>/v1/<path>`. Built-ins run in-process with the hub's own bindings (which hold
 * their secrets); external endpoints go through `fetcher`. A network failure is `upstream_unreachable`.
 */
export async function callUpstream(
  upstream: Upstream,
  path: string,
  init: RequestInit,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
): Promise<Response> {
  if (upstream.kind === "builtin") {
    return builtinHost().fetch(
      new Request(`http://builtin/envs/${upstream.name}/v1/${path}`, init),
      bindings,
    );
  }
  const url = `${upstream.url.replace(/\/+$/, "")}/v1/${path}`;
  try {
    return await fetcher(new Request(url, init));
  } catch {
    throw new EdgegymError("upstream_unreachable", `could not reach ${url}`);
  }
}

/** Fetches and validates `B/v1/manifest`; the error says exactly what was wrong. */
export async function fetchManifest(
  upstream: Upstream,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
): Promise<Result<Manifest, EdgegymError>> {
  let res: Response;
  try {
    res = await callUpstream(upstream, "manifest", { method: "GET" }, bindings, fetcher);
  } catch (e) {
    return { ok: false, error: e as EdgegymError };
  }
  if (res.status !== 200) {
    return { ok: false, error: new EdgegymError("bad_manifest", `GET manifest returned HTTP ${res.status}`) };
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    return { ok: false, error: new EdgegymError("bad_manifest", "the manifest is not JSON") };
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    return {
      ok: false,
      error: new EdgegymError("bad_manifest", "the manifest does not follow edgegym/v1", { issues }),
    };
  }
  return { ok: true, value: parsed.data };
}

/** An env's error reply as an EdgegymError with the env's own code, so the caller sees the real cause. */
export async function upstreamError(res: Response): Promise<EdgegymError> {
  const parsed = Problem.safeParse(await res.json().catch(() => null));
  if (!parsed.success)
    return new EdgegymError("upstream_unreachable", `the environment answered HTTP ${res.status}`);
  const { code, detail, issues } = parsed.data;
  return new EdgegymError(code, detail, issues ? { issues } : {});
}
