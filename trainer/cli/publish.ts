import { HubError, hubJson } from "../../hub/client.js";
import type { HostedBundle } from "../../shared/hosted.js";
import type { UpdateEnv } from "../../shared/registry.js";
import type { HubFlags } from "../client/credentials.js";
import { hubApi, splitRef } from "./hub-client.js";

/** A flag's value where the hub expects one of a few (`public`/`private`): the hub judges it. */
export type Visibility = NonNullable<UpdateEnv["visibility"]>;

/** What `envs update` (or `publish` on an existing env) says it changed, e.g. `visibility private`. */
export function describeChange(c: UpdateEnv): string {
  return [
    c.visibility === undefined ? "" : `visibility ${c.visibility}`,
    c.description === undefined ? "" : `description ${JSON.stringify(c.description)}`,
    c.tags === undefined ? "" : `tags ${c.tags.join(",")}`,
  ]
    .filter(Boolean)
    .join(", ");
}

/** What a version is served from: a URL, a built-in, or a pushed bundle the hub runs itself. */
export type VersionSource = { endpoint: string } | { builtin: string } | { bundle: HostedBundle };

export type PublishFlags = HubFlags & { visibility?: string; description?: string };

/**
 * Publishes `version` of `ref` (owner/name) from `source`, creating the env first if the hub has
 * none (private unless `--visibility` says otherwise). On an existing env the visibility and
 * description flags are not silently dropped: what differs is changed (the owner team only).
 */
export async function publishVersion(
  ref: string,
  version: string,
  source: VersionSource,
  o: PublishFlags,
): Promise<{ version: string; contentHash: string }> {
  const { owner, name } = splitRef(ref);
  const hub = hubApi(o);
  const env = hub.v1.envs[":owner"][":name"];
  const existing = await hubJson(env.$get({ param: { owner, name } })).catch((e: unknown) => {
    if (e instanceof HubError && e.status === 404) return null;
    throw e;
  });
  if (!existing) {
    await hubJson(
      hub.v1.envs.$post({
        json: {
          owner,
          name,
          visibility: (o.visibility ?? "private") as Visibility,
          description: o.description ?? "",
        },
      }),
    );
  }
  const v = await hubJson(env.versions.$post({ param: { owner, name }, json: { version, ...source } }));
  console.log(`published ${owner}/${name}@${v.version} (${v.contentHash})`);
  const change: UpdateEnv = {
    ...(o.visibility !== undefined && o.visibility !== existing?.visibility
      ? { visibility: o.visibility as Visibility }
      : {}),
    ...(o.description !== undefined && o.description !== existing?.description
      ? { description: o.description }
      : {}),
  };
  if (existing && Object.keys(change).length > 0) {
    await hubJson(env.$patch({ param: { owner, name }, json: change }));
    console.log(`updated ${owner}/${name}: ${describeChange(change)}`);
  }
  return v;
}
