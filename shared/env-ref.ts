import { z } from "zod";

/**
 * An environment reference `owner/name@version` (the version may be `latest`), written and read in this
 * one place: the hub's schemas and routes, the trainer's `hub://` envs, recipes and the CLI all use it.
 */

/** One character of a team or env name, and of a version (a semver, or `latest`), as regex source. */
export const SLUG_CHAR = "[a-z0-9-]";
export const VERSION_CHAR = "[0-9A-Za-z.+-]";
const SLUG = `${SLUG_CHAR}{1,64}`;
const VERSION = `${VERSION_CHAR}{1,128}`;

/**
 * `name@version` for a route path (`:ref{…}`): Hono's path patterns take no `{m,n}` counts, so the
 * lengths are checked by `parseNameAtVersion` in the handler.
 */
export const NAME_AT_VERSION_ROUTE = `${SLUG_CHAR}+@${VERSION_CHAR}+`;

const SLUG_RE = new RegExp(`^${SLUG}$`);
const NAME_AT_VERSION_RE = new RegExp(`^(${SLUG})@(${VERSION})$`);
const ENV_REF_RE = new RegExp(`^(${SLUG})/(${SLUG})@(${VERSION})$`);
const ENV_ID_RE = new RegExp(`^(${SLUG})/(${SLUG})(?:@(${VERSION}))?$`);

/** Lowercase `[a-z0-9-]`, 1–64 characters: team names and env names alike. */
export const Slug = z
  .string()
  .regex(SLUG_RE, "must be 1-64 characters of [a-z0-9-]")
  .meta({ example: "calculator" });

/** The bare pattern of a name (a manifest's `name`), for schemas that keep zod's own message. */
export const SLUG_REGEX = SLUG_RE;

/** `owner/name@version` as a string field of a request or a recipe. */
export const EnvRefString = z.string().regex(ENV_REF_RE, "must be owner/name@version");

/** `owner/name` with an optional `@version`: what lists of runs filter on. */
export const EnvIdString = z.string().regex(ENV_ID_RE);

export type EnvRef = { owner: string; name: string; version: string };

/** `owner/name@version`, or null when `text` is not of that shape. */
export function parseEnvRef(text: string): EnvRef | null {
  const m = ENV_REF_RE.exec(text);
  return m?.[1] && m[2] && m[3] ? { owner: m[1], name: m[2], version: m[3] } : null;
}

/** `owner/name` with an optional `@version` (undefined when absent), or null. */
export function parseEnvId(text: string): { owner: string; name: string; version?: string } | null {
  const m = ENV_ID_RE.exec(text);
  if (!m?.[1] || !m[2]) return null;
  return { owner: m[1], name: m[2], ...(m[3] ? { version: m[3] } : {}) };
}

/** `name@version` (the gateway's path segment), or null. */
export function parseNameAtVersion(text: string): { name: string; version: string } | null {
  const m = NAME_AT_VERSION_RE.exec(text);
  return m?.[1] && m[2] ? { name: m[1], version: m[2] } : null;
}

export function formatEnvRef(ref: EnvRef): string {
  return `${ref.owner}/${ref.name}@${ref.version}`;
}

/** The trainer's spelling of a hub env: `hub://owner/name@version`. */
export const HUB_SCHEME = "hub://";

/** The reference inside `hub://owner/name@version`, or null for any other `--env` value. */
export function parseHubEnv(spec: string): EnvRef | null {
  return spec.startsWith(HUB_SCHEME) ? parseEnvRef(spec.slice(HUB_SCHEME.length)) : null;
}
