import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostileUpstream, startHostileUpstream } from "../../tests/hub/hostile-upstream.js";
import { callUpstream } from "./upstream.js";

/**
 * `callUpstream` on Node (undici's fetch) against a real hostile endpoint: the deadline covers the
 * body as it does in workerd (tests/hub/gateway-origin.workers.test.ts).
 */
let server: HostileUpstream;
beforeAll(async () => {
  server = await startHostileUpstream();
});
afterAll(() => server.close());

const bindings = { HUB_ALLOW_PRIVATE_UPSTREAMS: "true" };
const call = (mode: string, key: string, timeoutMs: number) =>
  callUpstream(
    { kind: "endpoint", url: `${server.url}/h/${key}/${mode}` },
    "sessions",
    { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    bindings,
    (r) => fetch(r),
    timeoutMs,
  );

describe("callUpstream on Node", () => {
  it("cuts a body that arrives a byte at a time at the deadline and closes the connection", async () => {
    const key = "node-drip";
    await expect(call("drip", key, 300)).rejects.toMatchObject({
      code: "upstream_timeout",
      message: "the environment did not answer within 300 ms",
    });
    let open = -1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      open = Number(await fetch(`${server.url}/open/${key}`).then((r) => r.text()));
      if (open !== 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(open).toBe(0);
  });

  it("refuses a body past the cap, and returns a whole body that fits", async () => {
    await expect(call("huge", "node-huge", 10_000)).rejects.toMatchObject({ code: "upstream_bad_response" });
    const res = await call("json", "node-json", 10_000);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
  });
});
