import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { isPortRace, startLocalHub } from "./local-hub.js";

const taken: Server[] = [];
afterAll(() => Promise.all(taken.map((s) => new Promise((r) => s.close(r)))));

describe("the local hub of npm start", () => {
  it("refuses a port something already listens on, at once and in one line", async () => {
    const server = createServer();
    taken.push(server);
    await new Promise<void>((r) => server.listen(0, r));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const logged: string[] = [];
    const hub = await startLocalHub({ port: address.port, log: (l) => logged.push(l) });
    expect(hub).toEqual({ ok: false, error: `port ${address.port} is in use: pass another with --port` });
    // It never started wrangler: nothing was logged.
    expect(logged).toEqual([]);
  });

  it("tells wrangler's lost port race, which a second start fixes, from other failures", () => {
    // The line wrangler printed when two hubs started in the same second.
    expect(
      isPortRace(
        '✘ [ERROR] Address already in use (socket "direct:1:default"). Please check that you are not already running a server on this address or specify a different port with --port.',
      ),
    ).toBe(true);
    expect(isPortRace("hub: D1 migrations applied (9 new)")).toBe(false);
    expect(isPortRace('✘ [ERROR] Could not resolve "./missing.js"')).toBe(false);
  });
});
