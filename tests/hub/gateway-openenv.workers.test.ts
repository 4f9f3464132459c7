import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { describeOpenEnv } from "../openenv/index.js";
import { type FetchLike, playToEnd, socketUrl } from "../openenv/target.js";
import { workerdSocket } from "../openenv/workerd-socket.js";
import { hubClient, newEnv, newTeam } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

/** Requests as a token holder sends them: the bearer header on every call, the upgrade included. */
const withToken =
  (token: string, send: FetchLike = (i, init) => SELF.fetch(i, init)): FetchLike =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return send(input, { ...init, headers });
  };

describeOpenEnv("a private calculator through the hub gateway, with the owner's token", async () => {
  const a = await newTeam(hub);
  const { ref } = await newEnv(hub, a, { visibility: "private" });
  const send = withToken(a.token);
  return {
    baseUrl: `http://hub.test/v1/envs/${ref}`,
    fetch: send,
    connect: (url) => workerdSocket(send, url),
  };
});

describe("OpenEnv through the gateway: access and limits", () => {
  const owner = {} as { token: string; base: string };
  beforeAll(async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a, { visibility: "private" });
    Object.assign(owner, { token: a.token, base: `http://hub.test/v1/envs/${ref}` });
  });

  it("refuses the upgrade of a caller who may not read the env, before any socket opens", async () => {
    const anonymous = await SELF.fetch(`${owner.base}/ws`, { headers: { upgrade: "websocket" } });
    expect(anonymous.status).toBe(404);
    expect((await anonymous.json()) as { code: string }).toMatchObject({ code: "not_found" });
    const forged = await withToken("egh_not-a-token")(`${owner.base}/ws`, {
      headers: { upgrade: "websocket" },
    });
    expect(forged.status).toBe(401);
  });

  it("bounds the sockets one caller holds (HUB_MAX_SOCKETS_PER_CALLER) with 429 rate_limited", async () => {
    const limited = createHubApp();
    const bindings = { ...env, HUB_MAX_SOCKETS_PER_CALLER: "2" };
    const send = withToken(owner.token, async (input, init) =>
      limited.fetch(new Request(input, init), bindings),
    );
    const url = socketUrl(owner.base);
    const first = await workerdSocket(send, url);
    const second = await workerdSocket(send, url);
    const third = await send(url.replace(/^ws/, "http"), { headers: { upgrade: "websocket" } });
    expect(third.status).toBe(429);
    expect((await third.json()) as { code: string }).toMatchObject({ code: "rate_limited" });
    // The sockets held still play.
    const { result } = await playToEnd(
      { baseUrl: owner.base, fetch: send, connect: async () => first },
      first,
    );
    expect(result.done).toBe(true);
    first.close();
    second.close();
  });

  it("forwards OpenEnv's HTTP routes with the same access check", async () => {
    expect((await SELF.fetch(`${owner.base}/health`)).status).toBe(404);
    const res = await withToken(owner.token)(`${owner.base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "healthy" });
    expect(res.headers.get("x-edgegym-version")).toBe("1.0.0");
    expect((await withToken(owner.token)(`${owner.base}/no_such_route`)).status).toBe(404);
  });
});
