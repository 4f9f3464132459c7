import { z } from "@hono/zod-openapi";
import { Slug } from "./env-ref.js";
import { HostedBundle, HostedInfo } from "./hosted.js";
import { Manifest, Semver } from "./protocol.js";

/**
 * The wire shapes of the hub's registry API (teams, tokens, environments, versions, shares), shared by
 * the hub that serves them and every client. Named shapes (`.openapi("…")`) are components of the
 * hub's OpenAPI document.
 */

export { Slug };

/** Control, format (bidi overrides and isolates, zero-width), lone-surrogate and line-separator characters. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/**
 * A free-text name that others read (a model's, on leaderboards): refused at input when it holds an
 * invisible character, so no reader (the pages, the API's JSON, the CLI's tables) can be shown text
 * that reads differently from what it is: U+202E before `ledom-live` makes it show as `evil-model`.
 */
export const DisplayName = z
  .string()
  .min(1)
  .max(200)
  .superRefine((s, ctx) => {
    const bad = INVISIBLE.exec(s)?.[0];
    if (bad !== undefined)
      ctx.addIssue({
        code: "custom",
        message: `must not contain control or format characters (found U+${(bad.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")})`,
      });
  });

export const SCOPES = ["read", "publish", "eval", "admin"] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;
export const Visibility = z.enum(["public", "private"]);
export type Visibility = z.infer<typeof Visibility>;
export const Role = z.enum(["read", "publish"]);
export type Role = z.infer<typeof Role>;

export const Team = z.object({ name: Slug, createdAt: z.string() }).openapi("Team");
export const CreateTeam = z.object({ name: Slug });

export const CreateToken = z.object({
  scopes: z.array(Scope).min(1),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export type CreateToken = z.infer<typeof CreateToken>;
export const CreatedToken = z
  .object({
    id: z.string(),
    token: z.string().openapi({ description: "The secret; shown only in this response." }),
    team: Slug,
    scopes: z.array(Scope),
    expiresAt: z.string().nullable(),
  })
  .openapi("CreatedToken");
export type CreatedToken = z.infer<typeof CreatedToken>;

export const CreateEnv = z.object({
  owner: Slug,
  name: Slug,
  visibility: Visibility,
  description: z.string().max(2_000).optional(),
  tags: z.array(Slug).max(20).optional(),
  readme: z.string().max(100_000).optional(),
});
export type CreateEnv = z.infer<typeof CreateEnv>;

/** The env's editable fields; versions stay immutable, so their manifests are not among them. */
export const UpdateEnv = CreateEnv.pick({ visibility: true, description: true, tags: true, readme: true })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "name at least one field to change" });
export type UpdateEnv = z.infer<typeof UpdateEnv>;

export const VersionInfo = z
  .object({
    version: z.string(),
    prerelease: z.boolean(),
    yanked: z.boolean(),
    source: z.enum(["endpoint", "builtin", "hosted"]),
    endpoint: z.string().nullable(),
    builtin: z.string().nullable(),
    contentHash: z.string(),
    createdAt: z.string(),
  })
  .openapi("Version");
export type VersionInfo = z.infer<typeof VersionInfo>;

/** One version with its stored manifest (`GET …/versions/{version}`); `hosted` only for a pushed bundle. */
export const VersionDetail = VersionInfo.extend({ manifest: Manifest, hosted: HostedInfo.nullable() });

export const EnvSummary = z
  .object({
    owner: Slug,
    name: Slug,
    visibility: Visibility,
    description: z.string(),
    tags: z.array(z.string()),
    latest: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("EnvSummary");
export type EnvSummary = z.infer<typeof EnvSummary>;

export const EnvDetail = EnvSummary.extend({ readme: z.string(), versions: z.array(VersionInfo) }).openapi(
  "EnvDetail",
);
export type EnvDetail = z.infer<typeof EnvDetail>;

export const EnvList = z.object({ envs: z.array(EnvSummary), nextCursor: z.string().nullable() });
export type EnvList = z.infer<typeof EnvList>;
export const ListEnvsQuery = z.object({
  q: z.string().max(200).optional(),
  tag: Slug.optional(),
  owner: Slug.optional(),
  visibility: Visibility.optional(),
  cursor: z.string().regex(/^\d+$/).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** A version from an endpoint, a built-in, or a bundle the hub hosts (`edgegym push`): exactly one. */
export const Publish = z
  .object({
    version: Semver,
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    builtin: Slug.optional(),
    bundle: HostedBundle.optional(),
  })
  .refine((b) => [b.endpoint, b.builtin, b.bundle].filter((x) => x !== undefined).length === 1, {
    message: "give exactly one of endpoint, builtin or bundle",
  });

export const CreateShare = z.object({ team: Slug, role: Role });
export const Share = z.object({ team: Slug, role: Role, createdAt: z.string() }).openapi("Share");

export const EnvParams = z.object({ owner: Slug, name: Slug });
export const VersionParams = EnvParams.extend({ version: Semver });
/** A version or `latest`. */
export const VersionOrLatestParams = EnvParams.extend({ version: z.string().max(128) });
