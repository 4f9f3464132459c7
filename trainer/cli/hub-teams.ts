import type { Command } from "commander";
import { HubError, hubDone, hubJson } from "../../hub/client.js";
import type { CreateToken, Role } from "../../shared/registry.js";
import { type HubFlags, readCredentials, resolveHub } from "../client/credentials.js";
import { action, bootstrapSecret, hubApi, splitRef } from "./hub-client.js";
import { hubOptions } from "./hub-options.js";

type BootstrapFlags = HubFlags & { bootstrapFile?: string };

const DURATION = /^(\d+)([dh])$/;

/**
 * `--expires`: an ISO 8601 time, or a duration from now (`90d`, `12h`) so that a script keeps working
 * past any fixed date.
 */
export function expiryTime(value: string, now = Date.now()): string {
  const m = DURATION.exec(value);
  if (m?.[1] && m[2])
    return new Date(now + Number(m[1]) * (m[2] === "d" ? 86_400_000 : 3_600_000)).toISOString();
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new HubError(`--expires ${value}: expected an ISO 8601 time or a duration like 90d or 12h`);
  return new Date(t).toISOString();
}

/** `--bootstrap-file` given: call with the hub's bootstrap secret instead of the usual token. */
function withBootstrap(o: BootstrapFlags) {
  return o.bootstrapFile === undefined ? hubApi(o) : hubApi(o, { token: bootstrapSecret(o.bootstrapFile) });
}

/** `edgegym teams create | tokens create|revoke | share`: who may do what on the hub. */
export function registerTeamCommands(program: Command): void {
  const teams = program.command("teams").description("Create hub teams");
  hubOptions(
    teams
      .command("create <name>")
      .description("Create a team (takes the hub's bootstrap secret: HUB_ADMIN_TOKEN or --bootstrap-file)")
      .option(
        "--bootstrap-file <file>",
        "file holding the bootstrap secret (or npm run dev's hub-local.json)",
      ),
  ).action(
    action(async (name: string, o: BootstrapFlags) => {
      // The bootstrap secret is the usual way; without one, a token with the `admin` scope is tried.
      const useBootstrap =
        o.bootstrapFile !== undefined ||
        process.env.HUB_ADMIN_TOKEN ||
        !resolveHub(o, process.env, readCredentials()).token;
      const hub = useBootstrap ? hubApi(o, { token: bootstrapSecret(o.bootstrapFile) }) : hubApi(o);
      const t = await hubJson(hub.v1.teams.$post({ json: { name } }));
      console.log(
        `created team ${t.name}; give it a token with: edgegym tokens create --team ${t.name} --scopes …`,
      );
    }),
  );

  const tokens = program.command("tokens").description("Create and revoke hub API tokens");
  hubOptions(
    tokens
      .command("create")
      .description(
        "Create a token for a team (its admin token, or the bootstrap secret for a new team). The secret alone goes to stdout",
      )
      .requiredOption("--team <team>")
      .option("--scopes <list>", "comma-separated: read,publish,eval,admin", "read")
      .option("--expires <time>", "expiry: an ISO 8601 time or a duration such as 90d or 12h")
      .option("--bootstrap-file <file>", "use the hub's bootstrap secret from this file"),
  ).action(
    action(async (o: BootstrapFlags & { team: string; scopes: string; expires?: string }) => {
      const expiresAt = o.expires === undefined ? undefined : expiryTime(o.expires);
      // The hub checks each scope; its refusal names the one it does not know.
      const scopes = o.scopes.split(",") as CreateToken["scopes"];
      const t = await hubJson(
        withBootstrap(o).v1.teams[":team"].tokens.$post({
          param: { team: o.team },
          json: { scopes, ...(expiresAt ? { expiresAt } : {}) },
        }),
      );
      // stdout carries only the secret, so `TOKEN=$(edgegym tokens create …)` works.
      console.error(
        `edgegym: token ${t.id} for ${o.team} (${o.scopes}${t.expiresAt ? `, expires ${t.expiresAt}` : ""}); the secret is shown once:`,
      );
      console.log(t.token);
    }),
  );
  hubOptions(tokens.command("revoke <id>")).action(
    action(async (id: string, o: HubFlags) => {
      await hubDone(hubApi(o).v1.tokens[":id"].$delete({ param: { id } }));
      console.log(`revoked ${id}`);
    }),
  );

  hubOptions(
    program
      .command("share <ref>")
      .description("Share a private env with another team, or revoke the share")
      .requiredOption("--team <team>")
      .option("--role <role>", "read or publish", "read")
      .option("--revoke", "remove the share"),
  ).action(
    action(async (ref: string, o: HubFlags & { team: string; role: string; revoke?: boolean }) => {
      const { owner, name } = splitRef(ref);
      const shares = hubApi(o).v1.envs[":owner"][":name"].shares;
      if (o.revoke) await hubDone(shares[":team"].$delete({ param: { owner, name, team: o.team } }));
      else
        await hubJson(shares.$post({ param: { owner, name }, json: { team: o.team, role: o.role as Role } }));
      console.log(
        o.revoke
          ? `unshared ${owner}/${name} from ${o.team}`
          : `shared ${owner}/${name} with ${o.team} (${o.role})`,
      );
    }),
  );
}
