import { createRoute, z } from "@hono/zod-openapi";
import { hubTeams } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { CreatedToken, CreateTeam, CreateToken, Slug, Team } from "../../shared/registry.js";
import { hasScope } from "../auth/middleware.js";
import { createTeamToken, revokeTokenAs } from "../auth/token-admin.js";
import { hubDb, isUniqueViolation } from "../db.js";
import type { Principal } from "../env.js";
import { body, json, problems, routeApp } from "../route-app.js";

const createTeam = createRoute({
  method: "post",
  path: "/v1/teams",
  tags: ["teams"],
  summary: "Create a team (bootstrap secret or an admin token)",
  request: body(CreateTeam),
  responses: { 201: json(Team, "the team"), ...problems(401, 403, 409, 422) },
});

const createToken = createRoute({
  method: "post",
  path: "/v1/teams/{team}/tokens",
  tags: ["tokens"],
  summary: "Create an API token for a team; the secret is shown once",
  request: { params: z.object({ team: Slug }), ...body(CreateToken) },
  responses: { 201: json(CreatedToken, "the token, with its secret"), ...problems(401, 403, 404, 422) },
});

const revokeToken = createRoute({
  method: "delete",
  path: "/v1/tokens/{id}",
  tags: ["tokens"],
  summary: "Revoke a token (its team's admin, the token itself, or the bootstrap secret)",
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: { 204: { description: "revoked" }, ...problems(401, 404) },
});

function requireAnonymousNot(p: Principal): void {
  if (p.kind === "anonymous") throw new EdgegymError("unauthorized", "this route needs a bearer token");
}

/** `/v1/teams` and `/v1/tokens`: teams and their API tokens. */
export const teamRoutes = routeApp()
  .openapi(createTeam, async (c) => {
    const p = c.get("principal");
    requireAnonymousNot(p);
    if (p.kind !== "bootstrap" && !hasScope(p, "admin")) {
      throw new EdgegymError("forbidden", "creating teams needs the `admin` scope");
    }
    const { name } = c.req.valid("json");
    const createdAt = new Date(c.var.now());
    try {
      await hubDb(c.env).insert(hubTeams).values({ name, createdAt });
    } catch (e) {
      if (isUniqueViolation(e)) throw new EdgegymError("conflict", `team ${name} already exists`);
      throw e;
    }
    return c.json({ name, createdAt: createdAt.toISOString() }, 201);
  })
  .openapi(createToken, async (c) => {
    const p = c.get("principal");
    requireAnonymousNot(p);
    const { team } = c.req.valid("param");
    const allowed = p.kind === "bootstrap" || (p.kind === "token" && p.team === team && hasScope(p, "admin"));
    if (!allowed) throw new EdgegymError("forbidden", "tokens are created by the team's admin tokens");
    return c.json(await createTeamToken(hubDb(c.env), team, c.req.valid("json"), c.var.now()), 201);
  })
  .openapi(revokeToken, async (c) => {
    const p = c.get("principal");
    requireAnonymousNot(p);
    const { id } = c.req.valid("param");
    await revokeTokenAs(hubDb(c.env), p, id, c.var.now());
    return c.body(null, 204);
  });
