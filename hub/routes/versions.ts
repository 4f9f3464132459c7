import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { findBuiltin } from "../../environments/builtin.js";
import { hubEnvs, hubHostedSecrets, hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { HostedSource } from "../../shared/hosted.js";
import {
  EnvParams,
  Publish,
  VersionDetail,
  VersionInfo,
  VersionOrLatestParams,
  VersionParams,
} from "../../shared/registry.js";
import { readerTeam, requireTeam } from "../auth/middleware.js";
import { hubDb, isUniqueViolation } from "../db.js";
import { allowsPrivateUpstreams, checkEndpoint } from "../endpoint-policy.js";
import { checkHostedKey, prepareHosted, storeHosted } from "../hosted/publish.js";
import { readSource } from "../hosted/store.js";
import { publishableEnv, readableEnv } from "../registry/access.js";
import { refuseEmptyVersion } from "../registry/empty-version.js";
import { resolveVersion, versionDetailFor, versionInfo } from "../registry/resolve.js";
import { forgetGatewayTargets } from "../registry/target.js";
import { fetchManifest, manifestDeadline, type Upstream } from "../registry/upstream.js";
import { isPrerelease } from "../registry/versions.js";
import { body, json, problems, routeApp } from "../route-app.js";

const publish = createRoute({
  method: "post",
  path: "/v1/envs/{owner}/{name}/versions",
  tags: ["registry"],
  summary:
    "Publish an immutable version from an endpoint (its manifest is fetched and checked), a built-in, or a bundle the hub hosts",
  request: { params: EnvParams, ...body(Publish) },
  responses: {
    201: json(VersionInfo, "the version"),
    ...problems(401, 403, 404, 409, 413, 422, 502, 504, 508),
  },
});

const yank = createRoute({
  method: "post",
  path: "/v1/envs/{owner}/{name}/versions/{version}/yank",
  tags: ["registry"],
  summary: "Yank a version: hidden from @latest and new evals, kept for old results",
  request: { params: VersionParams },
  responses: { 200: json(VersionInfo), ...problems(401, 403, 404) },
});

const getVersion = createRoute({
  method: "get",
  path: "/v1/envs/{owner}/{name}/versions/{version}",
  tags: ["registry"],
  summary: "One version with its stored manifest; `latest` resolves",
  request: { params: VersionOrLatestParams },
  responses: { 200: json(VersionDetail), ...problems(401, 403, 404) },
});

const getSource = createRoute({
  method: "get",
  path: "/v1/envs/{owner}/{name}/versions/{version}/source",
  tags: ["registry"],
  summary: "A hosted version's modules as pushed, to read what runs; `latest` resolves",
  request: { params: VersionOrLatestParams },
  responses: { 200: json(HostedSource), ...problems(401, 403, 404) },
});

/** `/v1/envs/{owner}/{name}/versions`: publish, yank and read immutable versions. */
export const versionRoutes = routeApp()
  .openapi(publish, async (c) => {
    const { now, fetch } = c.var;
    const { team } = requireTeam(c.get("principal"), "publish");
    const { owner, name } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = hubDb(c.env);
    const env = await publishableEnv(db, team, owner, name);
    if (b.builtin && !findBuiltin(b.builtin)) {
      throw new EdgegymError("invalid_request", `no built-in environment ${b.builtin}`, {
        issues: [{ path: "builtin", message: "unknown built-in" }],
      });
    }
    if (b.endpoint !== undefined) {
      // Refused before anything is fetched, so nothing about an internal address comes back.
      const allowPrivate = allowsPrivateUpstreams(c.env);
      const verdict = checkEndpoint(b.endpoint, { allowPrivate, hubOrigin: new URL(c.req.url).origin });
      if (!verdict.ok) {
        throw new EdgegymError("invalid_request", `the endpoint is refused: ${verdict.reason}`, {
          issues: [{ path: "endpoint", message: verdict.reason }],
        });
      }
    }
    const hosted = b.bundle ? await prepareHosted(b.bundle, env.id, b.version, c.env) : undefined;
    const upstream: Upstream = b.builtin
      ? { kind: "builtin", name: b.builtin }
      : hosted
        ? { kind: "hosted", ...hosted.ref }
        : { kind: "endpoint", url: b.endpoint ?? "" };
    const manifest = await fetchManifest(upstream, c.env, fetch, manifestDeadline(c.env));
    if (!manifest.ok) throw manifest.error;
    if (hosted) checkHostedKey(manifest.value, hosted);
    await refuseEmptyVersion(manifest.value, upstream, c.env, fetch);
    const t = new Date(now());
    const row = {
      envId: env.id,
      version: b.version,
      prerelease: isPrerelease(b.version),
      endpoint: b.endpoint ?? null,
      builtin: b.builtin ?? null,
      bundleHash: hosted?.info.bundleHash ?? null,
      hosted: hosted?.info ?? null,
      manifest: manifest.value,
      publicKey: manifest.value.publicKey,
      contentHash: manifest.value.contentHash,
      yankedAt: null,
      createdAt: t,
    };
    try {
      const insert = db.insert(hubVersions).values(row);
      if (hosted) {
        const sealed = await storeHosted(c.env, hosted);
        // One batch: the version and its secrets exist together or not at all.
        await db.batch([
          insert,
          db.insert(hubHostedSecrets).values({ envId: env.id, version: b.version, sealed }),
        ]);
      } else await insert;
    } catch (e) {
      // The primary key (env, version) lets exactly one of concurrent publishes win.
      if (isUniqueViolation(e))
        throw new EdgegymError("conflict", `${owner}/${name}@${b.version} already exists`);
      throw e;
    }
    await db.update(hubEnvs).set({ updatedAt: t }).where(eq(hubEnvs.id, env.id));
    forgetGatewayTargets();
    return c.json(versionInfo(row), 201);
  })
  .openapi(yank, async (c) => {
    const { team } = requireTeam(c.get("principal"), "publish");
    const { owner, name, version } = c.req.valid("param");
    const db = hubDb(c.env);
    const env = await publishableEnv(db, team, owner, name);
    const row = await resolveVersion(db, env, version);
    const yankedAt = row.yankedAt ?? new Date(c.var.now());
    if (!row.yankedAt) {
      await db
        .update(hubVersions)
        .set({ yankedAt })
        .where(and(eq(hubVersions.envId, env.id), eq(hubVersions.version, version)));
    }
    forgetGatewayTargets();
    return c.json(versionInfo({ ...row, yankedAt }), 200);
  })
  .openapi(getVersion, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name, version } = c.req.valid("param");
    const db = hubDb(c.env);
    const { env, access } = await readableEnv(db, team, owner, name);
    const row = await resolveVersion(db, env, version);
    return c.json(versionDetailFor(row, access), 200);
  })
  .openapi(getSource, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name, version } = c.req.valid("param");
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, owner, name);
    const row = await resolveVersion(db, env, version);
    if (!row.bundleHash) {
      throw new EdgegymError(
        "not_found",
        `${owner}/${name}@${row.version} is not hosted, so the hub holds no source`,
      );
    }
    return c.json(await readSource(c.env, row.bundleHash), 200);
  });
