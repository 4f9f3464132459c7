import { z } from "@hono/zod-openapi";
import { Problem } from "../shared/errors.js";
import { Semver } from "../shared/protocol.js";
import { SCOPES } from "./env.js";

/** Lowercase `[a-z0-9-]`, 1–64 characters: team names and env names alike. */
export const Slug = z
  .string()
  .regex(/^[a-z0-9-]{1,64}$/, "must be 1-64 characters of [a-z0-9-]")
  .openapi({ example: "calculator" });

export const Scope = z.enum(SCOPES);
export const Visibility = z.enum(["public", "private"]);
export const Role = z.enum(["read", "publish"]);

export const ProblemSchema = Problem.openapi("Problem");

export const Team = z.object({ name: Slug, createdAt: z.string() }).openapi("Team");
export const CreateTeam = z.object({ name: Slug });

export const CreateToken = z.object({
  scopes: z.array(Scope).min(1),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export const CreatedToken = z
  .object({
    id: z.string(),
    token: z.string().openapi({ description: "The secret; shown only in this response." }),
    team: Slug,
    scopes: z.array(Scope),
    expiresAt: z.string().nullable(),
  })
  .openapi("CreatedToken");

export const CreateEnv = z.object({
  owner: Slug,
  name: Slug,
  visibility: Visibility,
  description: z.string().max(2_000).optional(),
  tags: z.array(Slug).max(20).optional(),
  readme: z.string().max(100_000).optional(),
});

export const VersionInfo = z
  .object({
    version: z.string(),
    prerelease: z.boolean(),
    yanked: z.boolean(),
    source: z.enum(["endpoint", "builtin"]),
    endpoint: z.string().nullable(),
    builtin: z.string().nullable(),
    contentHash: z.string(),
    createdAt: z.string(),
  })
  .openapi("Version");

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

export const EnvDetail = EnvSummary.extend({ readme: z.string(), versions: z.array(VersionInfo) }).openapi(
  "EnvDetail",
);

export const EnvList = z.object({ envs: z.array(EnvSummary), nextCursor: z.string().nullable() });
export const ListEnvsQuery = z.object({
  q: z.string().max(200).optional(),
  tag: Slug.optional(),
  owner: Slug.optional(),
  visibility: Visibility.optional(),
  cursor: z.string().regex(/^\d+$/).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const Publish = z
  .object({
    version: Semver,
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    builtin: Slug.optional(),
  })
  .refine((b) => (b.endpoint === undefined) !== (b.builtin === undefined), {
    message: "give exactly one of endpoint or builtin",
  });

export const CreateShare = z.object({ team: Slug, role: Role });
export const Share = z.object({ team: Slug, role: Role, createdAt: z.string() }).openapi("Share");

export const EnvParams = z.object({ owner: Slug, name: Slug });
export const VersionParams = EnvParams.extend({ version: Semver });

/** Problem responses every route may give, for the OpenAPI document. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: "problem", content: { "application/problem+json": { schema: ProblemSchema } } },
    ]),
  );
}

export function json<S extends z.ZodType>(schema: S, description = "ok") {
  return { description, content: { "application/json": { schema } } };
}

export function body<S extends z.ZodType>(schema: S) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}
