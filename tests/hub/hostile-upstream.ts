import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real env endpoint that attacks the hub which proxies it. Each published endpoint is
 * `<url>/h/<key>/<mode>`; until `POST <url>/arm/<key>` it answers `<base>/v1/manifest` with the manifest
 * stored by `PUT <url>/manifest/<key>` (so the hub accepts it at publish), and from then on it answers
 * every request (manifest, sessions, step, batch, expert, MCP) by its mode:
 * - `html`, `plain`, `untyped`: a page that steals cookies and mints a token, as `text/html`,
 *   `text/plain` or with no content type, with `Set-Cookie` and permissive CORS;
 * - `json`, `sse`: valid-looking JSON or an MCP event stream carrying the same hostile headers;
 * - `drip`: `200`, `{"jsonrpc":"2.0",` and then one byte every 200 ms, never ending;
 * - `huge`: a JSON body of 9 MiB.
 * `GET <url>/attack?action=<url>` is the attacker's own page (another origin): a form that posts
 * `text/plain` JSON to `action` on load, as any cross-site page can. `GET <url>/open/<key>` counts the drip connections of `key` still open, so a test can see that the
 * hub hung up.
 */
export const ATTACK_SCRIPT =
  "<script>document.cookie='edgegym_session=stolen; path=/';window.__pwned=true;" +
  "fetch('/account').then(r=>r.text()).then(t=>{window.__account=t})</script>";

const HOSTILE_HEADERS = {
  "set-cookie": "edgegym_session=stolen; Path=/",
  "access-control-allow-origin": "*",
  "access-control-allow-credentials": "true",
  "access-control-expose-headers": "*",
  "content-security-policy": "script-src * 'unsafe-inline'",
  refresh: "0; url=https://attacker.invalid/",
  link: "<https://attacker.invalid/x.css>; rel=stylesheet",
};

const page = `<!doctype html><title>env</title>${ATTACK_SCRIPT}`;

/**
 * `PUT …/manifest/<key>`: the body becomes the manifest the endpoint of `key` answers, so the hub
 * accepts it at publish (both test servers take one this way).
 */
export function storeManifest(
  req: IncomingMessage,
  res: ServerResponse,
  manifests: Map<string, string>,
  key: string,
): void {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => {
    body += chunk;
  });
  req.on("end", () => {
    manifests.set(key, body);
    res.writeHead(204).end();
  });
}

export type HostileUpstream = { url: string; close: () => Promise<void> };

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const manifests = new Map<string, string>();
  const armed = new Set<string>();
  const open = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const [kind, key = "", mode, ...rest] = (req.url ?? "/").split("?")[0]?.split("/").filter(Boolean) ?? [];
    if (req.method === "PUT" && kind === "manifest") {
      storeManifest(req, res, manifests, key);
      return;
    }
    if (kind === "arm") {
      armed.add(key);
      res.writeHead(204).end();
      return;
    }
    if (kind === "attack") {
      const action = new URL(req.url ?? "/", "http://x").searchParams.get("action") ?? "";
      const attr = action.replace(/[&"<>]/g, (ch) => `&#${ch.charCodeAt(0)};`);
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><form method="post" enctype="text/plain" action="${attr}">` +
            `<input name='{"split":"train","index":0,"x":"' value='"}'></form>` +
            "<script>document.forms[0].submit()</script>",
        );
      return;
    }
    if (kind === "open") {
      res.writeHead(200, { "content-type": "application/json" }).end(String(open.get(key) ?? 0));
      return;
    }
    if (kind !== "h") {
      res.writeHead(404).end();
      return;
    }
    // Drain the request body, then attack.
    req.resume();
    if (!armed.has(key) && rest.join("/") === "v1/manifest" && manifests.has(key)) {
      res.writeHead(200, { "content-type": "application/json" }).end(manifests.get(key));
      return;
    }
    switch (mode) {
      case "html":
        res.writeHead(200, { ...HOSTILE_HEADERS, "content-type": "text/html; charset=utf-8" }).end(page);
        return;
      case "plain":
        res.writeHead(200, { ...HOSTILE_HEADERS, "content-type": "text/plain" }).end(page);
        return;
      case "untyped":
        // Node adds no content type of its own.
        res.writeHead(200, HOSTILE_HEADERS).end(page);
        return;
      case "json":
        res
          .writeHead(200, { ...HOSTILE_HEADERS, "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { note: page } }));
        return;
      case "sse":
        res
          .writeHead(200, { ...HOSTILE_HEADERS, "content-type": "text/event-stream" })
          .end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}\n\n`);
        return;
      case "drip": {
        open.set(key, (open.get(key) ?? 0) + 1);
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"jsonrpc":"2.0",');
        const timer = setInterval(() => res.write(" "), 200);
        res.on("close", () => {
          clearInterval(timer);
          open.set(key, (open.get(key) ?? 1) - 1);
        });
        return;
      }
      case "huge":
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(`{"pad":"${"x".repeat(9 * 1024 * 1024)}"}`);
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
