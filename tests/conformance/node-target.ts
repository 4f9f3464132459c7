import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createEnvironmentsHost } from "../../environments/host.js";
import { type AppOptions, type Environment, generateSecrets } from "../../environments/kit/index.js";
import type { ConformanceTarget } from "./client.js";

/**
 * Serves `environments` over real HTTP on a free port with fresh secrets, the way `npm run envs`
 * does, and returns the conformance target for the first one.
 */
export async function serveOnNode(
  environments: readonly Environment[],
  options: AppOptions & { secrets?: Record<string, string> } = {},
): Promise<ConformanceTarget & { port: number }> {
  const secrets = options.secrets ?? (await generateSecrets());
  const app = createEnvironmentsHost(environments, options);
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((done) => {
    const s = serve({ fetch: (req) => app.fetch(req, secrets), port: 0, hostname: "127.0.0.1" }, (info) =>
      done({ server: s, port: (info as AddressInfo).port }),
    );
  });
  const first = environments[0];
  if (!first) throw new Error("serveOnNode needs at least one environment");
  return {
    baseUrl: `http://127.0.0.1:${port}/envs/${first.name}`,
    secrets,
    port,
    close: () =>
      new Promise<void>((done) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
