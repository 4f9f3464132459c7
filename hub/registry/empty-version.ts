import { EdgegymError, Problem } from "../../shared/errors.js";
import type { Manifest } from "../../shared/protocol.js";
import { callUpstream, manifestDeadline, type Upstream } from "./upstream.js";

type Fetcher = (request: Request) => Promise<Response>;

/**
 * Refuses to publish a version whose manifest counts 0 tasks in every split: versions are immutable,
 * and one with no tasks could never be evaluated (a dataset env published before its data was
 * imported, typically). The env's own reason (a `dataset_not_imported` detail naming the import
 * command) is asked for with one session request and quoted, so the publisher learns what to do.
 */
export async function refuseEmptyVersion(
  manifest: Manifest,
  upstream: Upstream,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
): Promise<void> {
  const splits = Object.entries(manifest.splits);
  if (splits.some(([, n]) => n > 0)) return;
  const counts = splits.map(([s, n]) => `${s} ${n}`).join(", ") || "no splits";
  const why = splits[0] ? await envReason(splits[0][0], upstream, bindings, fetcher) : undefined;
  throw new EdgegymError(
    "bad_manifest",
    `${manifest.name}@${manifest.version} has 0 tasks in every split (${counts}), so it cannot be evaluated and is not published${why ? `; the environment says: ${why}` : ""}`,
    { issues: [{ path: "splits", message: "every split has 0 tasks" }] },
  );
}

/** The problem detail the env gives for a session on `split`, if it gives one. */
async function envReason(
  split: string,
  upstream: Upstream,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
): Promise<string | undefined> {
  try {
    const res = await callUpstream(
      upstream,
      "sessions",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ split, index: 0 }),
      },
      bindings,
      fetcher,
      manifestDeadline(bindings),
    );
    const p = Problem.safeParse(await res.json().catch(() => null));
    return p.success ? p.data.detail : undefined;
  } catch {
    // The reason is a courtesy: the refusal stands without it.
    return undefined;
  }
}
