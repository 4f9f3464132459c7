import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startHostileUpstream, storeManifest } from "./hostile-upstream.js";

/**
 * A real HTTP server on 127.0.0.1 that accepts connections and, for the hub's deadline tests, never
 * answers (started once in Node by the workers project's globalSetup; workerd fetches it over TCP):
 * - `PUT /manifest/<key>` stores a manifest (204);
 * - `GET /half/<key>/v1/manifest` answers it; every other `/half/<key>/…` request is never answered;
 * - `GET /slow-body/v1/manifest` sends 200 and the first bytes of a body, then nothing more;
 * - `GET /redirect/<key>/v1/manifest` answers 302 to `/half/<key>/v1/manifest`;
 * - anything else is never answered.
 */
declare module "vitest" {
  export interface ProvidedContext {
    stallUrl: string;
    hostileUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const manifests = new Map<string, string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts = (req.url ?? "/").split("/").filter(Boolean);
    const [kind, key, ...rest] = parts;
    if (req.method === "PUT" && kind === "manifest" && key) {
      storeManifest(req, res, manifests, key);
      return;
    }
    const wantsManifest = rest.join("/") === "v1/manifest";
    if (kind === "half" && key && wantsManifest && manifests.has(key)) {
      res.writeHead(200, { "content-type": "application/json" }).end(manifests.get(key));
      return;
    }
    if (kind === "redirect" && key && wantsManifest) {
      res.writeHead(302, { location: `/half/${key}/v1/manifest` }).end();
      return;
    }
    if (kind === "slow-body") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"protocol":');
      return;
    }
    // Never answered: the socket stays open until the test run ends.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("stallUrl", `http://127.0.0.1:${port}`);
  // An endpoint that attacks the hub's origin (tests/hub/hostile-upstream.ts), for the gateway's rules.
  const hostile = await startHostileUpstream();
  project.provide("hostileUrl", hostile.url);
  return async () => {
    await hostile.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
