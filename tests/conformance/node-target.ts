import { createEnvironmentsHost } from "../../environments/host.js";
import { type AppOptions, type Environment, generateSecrets } from "../../environments/kit/index.js";
import { listen } from "../../environments/node/listen.js";
import type { ConformanceTarget } from "./client.js";

/**
 * Serves `environments` over real HTTP on a free port (@hono/node-server, as `npm run envs` does) with
 * fresh secrets unless given, and returns the conformance target for the first one. Extra `bindings`
 * (a database, say) are passed to the environments alongside the secrets.
 */
export async function serveOnNode(
  environments: readonly Environment[],
  options: AppOptions & { secrets?: Record<string, string>; bindings?: Record<string, unknown> } = {},
): Promise<ConformanceTarget & { port: number }> {
  const first = environments[0];
  if (!first) throw new Error("serveOnNode needs at least one environment");
  const secrets = options.secrets ?? (await generateSecrets());
  const server = await listen(createEnvironmentsHost(environments, options), {
    ...options.bindings,
    ...secrets,
  });
  return { baseUrl: `${server.url}/envs/${first.name}`, secrets, port: server.port, close: server.close };
}
