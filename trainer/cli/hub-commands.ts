import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import {
  action,
  credentialsPath,
  type HubFlags,
  hubApi,
  readCredentials,
  resolveHub,
  splitRef,
  writeCredentials,
} from "./hub-client.js";

type Env = { owner: string; name: string; visibility: string; latest: string | null; description: string };

const hubOptions = (c: Command) =>
  c
    .option("--hub <url>", "hub URL (env EDGEGYM_HUB_URL)")
    .option("--token <token>", "API token (env EDGEGYM_TOKEN)");

/** `edgegym login | publish | envs list|show | share | tokens create|revoke`: the hub from the terminal. */
export function registerHub(program: Command): void {
  // `publish --version` is the env's version: the program's own --version counts only before a command.
  program.enablePositionalOptions();
  hubOptions(
    program.command("login").description("Check a hub token and keep it in the credentials file"),
  ).action(
    action(async (flags: HubFlags) => {
      const resolved = resolveHub(flags, process.env, readCredentials());
      let token = resolved.token;
      if (!token) {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        token = (await rl.question("hub token (egh_…): ")).trim();
        rl.close();
      }
      await hubApi({ hub: resolved.url, token })("GET", "/v1/envs?limit=1");
      writeCredentials({ url: resolved.url, token });
      console.log(`logged in to ${resolved.url}; credentials in ${credentialsPath()}`);
    }),
  );

  hubOptions(
    program
      .command("publish <ref>")
      .description(
        "Publish a version of owner/name from an endpoint or a built-in (creates the env if needed)",
      )
      .requiredOption("--version <semver>", "the version to publish")
      .option("--endpoint <url>", "base URL B of an edgegym/v1 env (B/v1/manifest)")
      .option("--builtin <name>", "a built-in environment")
      .option("--visibility <v>", "public or private, when the env is created", "private")
      .option("--description <text>", "description, when the env is created"),
  ).action(
    action(
      async (
        ref: string,
        o: HubFlags & {
          version: string;
          endpoint?: string;
          builtin?: string;
          visibility: string;
          description?: string;
        },
      ) => {
        const { owner, name } = splitRef(ref);
        const call = hubApi(o);
        const exists = await call("GET", `/v1/envs/${owner}/${name}`).then(
          () => true,
          () => false,
        );
        if (!exists) {
          await call("POST", "/v1/envs", {
            owner,
            name,
            visibility: o.visibility,
            description: o.description ?? "",
          });
        }
        const source = o.endpoint ? { endpoint: o.endpoint } : { builtin: o.builtin };
        const v = await call<{ version: string; contentHash: string }>(
          "POST",
          `/v1/envs/${owner}/${name}/versions`,
          {
            version: o.version,
            ...source,
          },
        );
        console.log(`published ${owner}/${name}@${v.version} (${v.contentHash})`);
      },
    ),
  );

  const envs = program.command("envs").description("Browse the hub's environments");
  hubOptions(
    envs
      .command("list")
      .option("-q, --query <text>", "full-text search")
      .option("--tag <tag>")
      .option("--owner <team>")
      .option("--visibility <v>")
      .option("--limit <n>", "page size", "50"),
  ).action(
    action(
      async (
        o: HubFlags & { query?: string; tag?: string; owner?: string; visibility?: string; limit: string },
      ) => {
        const params = new URLSearchParams({ limit: o.limit });
        for (const [k, v] of [
          ["q", o.query],
          ["tag", o.tag],
          ["owner", o.owner],
          ["visibility", o.visibility],
        ] as const) {
          if (v) params.set(k, v);
        }
        const page = await hubApi(o)<{ envs: Env[]; nextCursor: string | null }>("GET", `/v1/envs?${params}`);
        for (const e of page.envs) {
          console.log(`${e.owner}/${e.name}@${e.latest ?? "-"}\t${e.visibility}\t${e.description}`);
        }
        if (page.nextCursor) console.log(`… more: --cursor ${page.nextCursor}`);
      },
    ),
  );
  hubOptions(envs.command("show <ref>")).action(
    action(async (ref: string, o: HubFlags) => {
      const { owner, name } = splitRef(ref);
      console.log(JSON.stringify(await hubApi(o)("GET", `/v1/envs/${owner}/${name}`), null, 2));
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
      const call = hubApi(o);
      if (o.revoke) await call("DELETE", `/v1/envs/${owner}/${name}/shares/${o.team}`);
      else await call("POST", `/v1/envs/${owner}/${name}/shares`, { team: o.team, role: o.role });
      console.log(
        o.revoke
          ? `unshared ${owner}/${name} from ${o.team}`
          : `shared ${owner}/${name} with ${o.team} (${o.role})`,
      );
    }),
  );

  const tokens = program.command("tokens").description("Create and revoke hub API tokens");
  hubOptions(
    tokens
      .command("create")
      .requiredOption("--team <team>")
      .option("--scopes <list>", "comma-separated: read,publish,eval,admin", "read")
      .option("--expires <iso>", "expiry, an ISO 8601 time"),
  ).action(
    action(async (o: HubFlags & { team: string; scopes: string; expires?: string }) => {
      const t = await hubApi(o)<{ id: string; token: string }>("POST", `/v1/teams/${o.team}/tokens`, {
        scopes: o.scopes.split(","),
        ...(o.expires ? { expiresAt: o.expires } : {}),
      });
      console.log(`token ${t.id} (shown once):\n${t.token}`);
    }),
  );
  hubOptions(tokens.command("revoke <id>")).action(
    action(async (id: string, o: HubFlags) => {
      await hubApi(o)("DELETE", `/v1/tokens/${id}`);
      console.log(`revoked ${id}`);
    }),
  );
}
