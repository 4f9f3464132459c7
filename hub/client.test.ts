import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError, hubClient, hubDone, hubJson } from "./client.js";

/** A stand-in hub with fixed replies: the client's handling of replies is under test, not the hub. */
function standIn(): Server {
  return createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    if (req.url === "/v1/envs?limit=1") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ envs: [], nextCursor: auth }));
    } else if (req.url === "/v1/teams") {
      res.writeHead(400, { "content-type": "application/problem+json" });
      res.end(
        JSON.stringify({
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          code: "invalid_request",
          detail: "the request does not match the schema",
          issues: [{ path: "name", message: "must be 1-64 characters of [a-z0-9-]" }],
        }),
      );
    } else if (req.url === "/v1/tokens/tok_1") {
      res.writeHead(204);
      res.end();
    } else if (req.url === "/v1/tokens/tok_2") {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end("bad gateway from a proxy");
    }
    // Any other path is never answered: the client's deadline must end the call.
  });
}

describe("the typed hub client", () => {
  const server = standIn();
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("sends the bearer token and returns the reply's JSON", async () => {
    const page = await hubJson(hubClient({ url, token: "egh_x" }).v1.envs.$get({ query: { limit: "1" } }));
    expect(page).toEqual({ envs: [], nextCursor: "Bearer egh_x" });
  });

  it("turns a refusal into a HubError with the problem and its issues on one line, exit code 2", async () => {
    const call = hubJson(hubClient({ url }).v1.teams.$post({ json: { name: "Bad Name" } }));
    const e = await call.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HubError);
    expect((e as HubError).message).toBe(
      "the request does not match the schema (invalid_request): name: must be 1-64 characters of [a-z0-9-]",
    );
    expect((e as HubError).exitCode).toBe(2);
    expect((e as HubError).status).toBe(400);
    expect((e as HubError).problem?.issues).toHaveLength(1);
  });

  it("accepts a 204, and shows a 5xx without a problem as its status and body, exit code 1", async () => {
    const tokens = hubClient({ url }).v1.tokens[":id"];
    await expect(hubDone(tokens.$delete({ param: { id: "tok_1" } }))).resolves.toBeUndefined();
    const e = await hubDone(tokens.$delete({ param: { id: "tok_2" } })).catch((x: unknown) => x);
    expect((e as HubError).message).toBe("HTTP 502: bad gateway from a proxy");
    expect((e as HubError).exitCode).toBe(1);
  });

  it("gives up on a hub that never answers at its deadline, as unreachable (exit code 1)", async () => {
    const e = await hubJson(hubClient({ url }, 50).v1.evals[":id"].$get({ param: { id: "run_x" } })).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(HubError);
    expect((e as HubError).message).toBe(`cannot reach the hub at ${url} (no answer in 50 ms)`);
    expect((e as HubError).exitCode).toBe(1);
  });
});
