import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "../../environments/builtin.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { MemorySessionStore } from "../../environments/kit/mcp/session-store.js";
import { type Listening, listen } from "../../environments/node/listen.js";
import { connectMcp } from "./play.js";

/**
 * The Node host's MCP session bounds against floods, over real HTTP: every built-in env shares one
 * small store, as a node:cluster primary's is shared, and the flood comes from another loopback
 * address (127.0.0.2), which the host tells apart from the victim's 127.0.0.1 by the socket alone.
 */
const STORE_SIZE = 30;
let server: Listening;
let store: MemorySessionStore;

beforeAll(async () => {
  store = new MemorySessionStore(STORE_SIZE, 10);
  server = await listen(
    createEnvironmentsHost(builtinEnvironments, { mcp: { store } }),
    await generateSecrets(),
  );
});
afterAll(() => server.close());

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One `initialize` POST from `localAddress`, with the Accept header given. */
function initialize(env: string, localAddress: string, accept = "application/json, text/event-stream") {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
  });
  return new Promise<Answer>((done, fail) => {
    const req = request(
      `${server.url}/envs/${env}/mcp`,
      { method: "POST", localAddress, headers: { "content-type": "application/json", accept } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

describe("MCP session bounds on the Node host", () => {
  it("a flood of initialize from another client ends no live session: the flood is refused", async () => {
    const victim = await connectMcp(`${server.url}/envs/calculator/mcp?split=train&index=0`);
    await victim.client.callTool({ name: "calculator", arguments: { expression: "90-(4*7+2*7)" } });

    // 3 addresses × 15 initializes on another env: more than the store holds (30), and each address
    // more than its own bound (10).
    const answers: Answer[] = [];
    for (const address of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) {
      for (let i = 0; i < 15; i++) answers.push(await initialize("lookup", address));
    }
    const statuses = answers.map((a) => a.status);
    // The first two addresses: 10 taken, then 5 refused for their own bound (429). The third: 9
    // taken, which fills the store (the victim holds the 30th), then 6 refused for the store's (503).
    expect(statuses).toEqual(
      [10, 5, 10, 5, 9, 6].flatMap((n, i) => Array<number>(n).fill([200, 429, 200, 429, 200, 503][i] ?? 0)),
    );
    const limited = answers.find((a) => a.status === 429);
    expect(limited?.headers["content-type"]).toContain("application/problem+json");
    expect(JSON.parse(limited?.body ?? "{}")).toMatchObject({ code: "rate_limited" });
    // Retry-After: the address's first session expires in lookup's session TTL (3600 s), give or take a second.
    expect(Number(limited?.headers["retry-after"])).toBeGreaterThan(3500);
    const full = answers.find((a) => a.status === 503);
    expect(JSON.parse(full?.body ?? "{}")).toMatchObject({ code: "at_capacity" });
    expect(Number(full?.headers["retry-after"])).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status !== 200))
      expect(a.headers["mcp-session-id"]).toBeUndefined();
    expect(store.size).toBe(STORE_SIZE);

    // The victim's episode goes on: task train/0's change is 48.
    const end = await victim.client.callTool({ name: "submit_answer", arguments: { answer: "#### 48" } });
    expect(end.structuredContent).toMatchObject({ reward: 1, steps: 2, done: true });
    await victim.client.close();
  });

  it("a refused initialize (406 for Accept: */*) creates no session and names none", async () => {
    const before = store.size;
    for (const env of ["calculator", "search"]) {
      const refused = await initialize(env, "127.0.0.5", "*/*");
      expect(refused.status).toBe(406);
      expect(refused.headers["mcp-session-id"]).toBeUndefined();
    }
    expect(store.size).toBe(before);
  });
});
