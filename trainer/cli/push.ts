import type { Command } from "commander";
import { HubError } from "../../hub/client.js";
import { Semver } from "../../shared/protocol.js";
import { action, splitRef } from "./hub-client.js";
import { hubOptions } from "./hub-options.js";
import { type PublishFlags, publishVersion } from "./publish.js";
import { collect } from "./run-io.js";

type PushFlags = PublishFlags & {
  env: string;
  version: string;
  entry: string;
  outbound: string[];
  dryRun?: boolean;
};

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/**
 * `edgegym push [dir] --env owner/name --version x.y.z`: bundles the env in `dir` for workerd, checks
 * it in-process (it loads, its manifest is valid, some split has tasks, the conformance suite passes)
 * and publishes it as a hosted version, which the hub runs in a sandboxed isolate of its own. Every
 * refusal is one line naming what failed, exit 2.
 */
export function registerPush(program: Command): void {
  hubOptions(
    program
      .command("push [dir]")
      .description("Bundle the env in dir (default .), check it locally and publish it for the hub to host")
      .requiredOption("--env <ref>", "owner/name to publish as (created if needed)")
      .requiredOption("--version <semver>", "the version to publish")
      .option(
        "--entry <file>",
        "the worker entry in dir (export default createEnvironmentApp(env))",
        "worker.ts",
      )
      .option(
        "--outbound <host>",
        "a host the env's fetch may reach on the hub (repeatable; default none)",
        collect,
        [],
      )
      .option("--visibility <v>", "public or private (default private); on an existing env, changes it")
      .option("--description <text>", "description; on an existing env, changes it")
      .option("--dry-run", "bundle and check only; upload nothing"),
  ).action(
    action(async (dir: string | undefined, o: PushFlags) => {
      splitRef(o.env);
      if (!Semver.safeParse(o.version).success)
        throw new HubError(`--version ${o.version}: not a semver (e.g. 1.0.0)`);
      // Loaded here, not at start: esbuild, the kit and the hub's checks would slow every other command.
      const [{ bundleEnvironment, moduleBytes }, { checkBundle }, { BUNDLE_MAX_BYTES }] = await Promise.all([
        import("./bundle.js"),
        import("./push-check.js"),
        import("../../hub/hosted/bundle.js"),
      ]);
      const bundled = await bundleEnvironment(dir ?? ".", o.entry, o.outbound);
      if (!bundled.ok) throw new HubError(bundled.error);
      const bundle = bundled.value;
      const bytes = bundle.modules.reduce((n, m) => n + moduleBytes(m), 0);
      // The hub's own limit (it refuses bigger bundles with bundle_too_large), found before any upload.
      if (bytes > BUNDLE_MAX_BYTES)
        throw new HubError(`bundle: ${kib(bytes)} is over the hub's limit of ${kib(BUNDLE_MAX_BYTES)}`);
      const modules = bundle.modules.map((m) => `${m.name} ${kib(moduleBytes(m))}`).join(", ");
      console.log(`bundled ${bundle.modules.length} modules, ${kib(bytes)}: ${modules}`);
      const checked = await checkBundle(bundle);
      if (!checked.ok) throw new HubError(`check failed: ${checked.error}`);
      const { manifest, tasks, conformanceTests } = checked.value;
      console.log(
        `checked ${manifest.name}@${manifest.version}: ${tasks} tasks, ${conformanceTests} conformance tests passed`,
      );
      if (o.dryRun) return;
      await publishVersion(o.env, o.version, { bundle }, o);
    }),
  );
}
