import type { Manifest } from "../../shared/protocol.js";
import type { EnvClient } from "../client/env-client.js";

/**
 * Why a split has no tasks, in the env's own words when it has them: a dataset-backed env answers a
 * session on an empty split with `dataset_not_imported` naming the import command, which says more
 * than "no tasks". Asking costs one session request.
 */
export async function emptySplitReason(
  client: EnvClient,
  manifest: Manifest,
  split: string,
): Promise<string> {
  const known = Object.keys(manifest.splits);
  if (!known.includes(split))
    return `${manifest.name} has no split "${split}" (its splits: ${known.join(", ") || "none"})`;
  const probe = await client.reset({ split, index: 0 });
  if (!probe.ok && probe.error.status !== undefined)
    return `${manifest.name}: ${probe.error.detail}${probe.error.code ? ` (${probe.error.code})` : ""}`;
  return `${manifest.name} has no tasks in split "${split}"`;
}

/**
 * Why the env's expert will not demonstrate on `split`, when it refuses: envs keep their held-out
 * splits (by default `test`) from the expert so evaluations can't be gamed, and SFT on such a split
 * would otherwise end as "no usable demonstrations". One session and one expert call.
 */
export async function expertRefusal(
  client: EnvClient,
  manifest: Manifest,
  split: string,
): Promise<string | undefined> {
  const start = await client.reset({ split, index: 0 });
  if (!start.ok) return undefined;
  const expert = await client.expert(start.value.session);
  if (expert.ok || expert.error.code !== "expert_forbidden") return undefined;
  return `the expert of ${manifest.name} refuses split "${split}" (${expert.error.detail}); take demonstrations from another split, e.g. --split train`;
}
