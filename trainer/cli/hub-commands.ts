import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { HubError, hubJson } from "../../hub/client.js";
import type { UpdateEnv } from "../../shared/registry.js";
import {
  credentialsPath,
  type HubFlags,
  readCredentials,
  resolveHub,
  writeCredentials,
} from "../client/credentials.js";
import { action, hubApi, splitRef } from "./hub-client.js";
import { registerEvalCommands } from "./hub-evals.js";
import { hubOptions } from "./hub-options.js";
import { registerTeamCommands } from "./hub-teams.js";
import { describeChange, publishVersion, type Visibility } from "./publish.js";

/**
 * `edgegym login | publish | envs list|show|update`, plus the team, token, share, leaderboard and
 * evaluation commands of `hub-teams.ts` and `hub-evals.ts`: the hub from the terminal.
 */
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
      await hubJson(hubApi({ hub: resolved.url, token }).v1.envs.$get({ query: { limit: "1" } }));
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
      .option("--visibility <v>", "public or private (default private); on an existing env, changes it")
      .option("--description <text>", "description; on an existing env, changes it"),
  ).action(
    action(
      async (
        ref: string,
        o: HubFlags & {
          version: string;
          endpoint?: string;
          builtin?: string;
          visibility?: string;
          description?: string;
        },
      ) => {
        if ((o.endpoint === undefined) === (o.builtin === undefined))
          throw new HubError(
            "publish: give exactly one of --endpoint or --builtin (or push a bundle: edgegym push)",
          );
        const source = o.endpoint ? { endpoint: o.endpoint } : { builtin: o.builtin as string };
        await publishVersion(ref, o.version, source, o);
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
        const query = {
          limit: o.limit,
          ...(o.query ? { q: o.query } : {}),
          ...(o.tag ? { tag: o.tag } : {}),
          ...(o.owner ? { owner: o.owner } : {}),
          ...(o.visibility ? { visibility: o.visibility as Visibility } : {}),
        };
        const page = await hubJson(hubApi(o).v1.envs.$get({ query }));
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
      const env = await hubJson(hubApi(o).v1.envs[":owner"][":name"].$get({ param: { owner, name } }));
      console.log(JSON.stringify(env, null, 2));
    }),
  );
  hubOptions(
    envs
      .command("update <ref>")
      .description("Change an env's visibility, description or tags (its owner team only)")
      .option("--visibility <v>", "public or private")
      .option("--description <text>")
      .option("--tags <list>", "comma-separated tags (replaces the current ones)"),
  ).action(
    action(
      async (ref: string, o: HubFlags & { visibility?: string; description?: string; tags?: string }) => {
        const { owner, name } = splitRef(ref);
        const change: UpdateEnv = {
          ...(o.visibility === undefined ? {} : { visibility: o.visibility as Visibility }),
          ...(o.description === undefined ? {} : { description: o.description }),
          ...(o.tags === undefined ? {} : { tags: o.tags.split(",").filter(Boolean) }),
        };
        if (Object.keys(change).length === 0)
          throw new HubError("envs update: give --visibility, --description or --tags");
        await hubJson(hubApi(o).v1.envs[":owner"][":name"].$patch({ param: { owner, name }, json: change }));
        console.log(`updated ${owner}/${name}: ${describeChange(change)}`);
      },
    ),
  );

  registerTeamCommands(program);
  registerEvalCommands(program);
}
