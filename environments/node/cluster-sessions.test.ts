import type { Cluster } from "node:cluster";
import { EventEmitter } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcp, playExpertOverMcp } from "../../tests/mcp/play.js";
import { calculator } from "../calculator/index.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { type McpEpisode, MemorySessionStore } from "../kit/mcp/session-store.js";
import { ClusterSessionStore, serveClusterSessions } from "./cluster-sessions.js";
import { type Listening, listen } from "./listen.js";

/** An episode at its start as the store keeps it, expiring at `expiresAt` (ms). */
const episodeAt = (expiresAt: number): McpEpisode => ({
  token: "t",
  step: 0,
  done: false,
  episodeId: "e",
  task: { split: "train", index: 0 },
  system: "",
  user: "",
  return: 0,
  expiresAt,
});

/**
 * node:cluster's IPC without processes: a primary emitter and worker channels, each message passed
 * through JSON as the default IPC serialisation does, delivered on a later tick.
 */
function fakeCluster(held?: MemorySessionStore) {
  const primary = new EventEmitter();
  serveClusterSessions(primary as unknown as Cluster, held);
  const worker = () => {
    const channel = new EventEmitter() as EventEmitter & { send(m: unknown): boolean };
    const handle = {
      send: (m: unknown) => {
        setImmediate(() => channel.emit("message", JSON.parse(JSON.stringify(m))));
        return true;
      },
    };
    channel.send = (m) => {
      setImmediate(() => primary.emit("message", handle, JSON.parse(JSON.stringify(m))));
      return true;
    };
    return new ClusterSessionStore(channel as unknown as NodeJS.Process);
  };
  return { worker };
}

const servers: Listening[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe("MCP sessions shared by a cluster's processes", () => {
  it("plays one episode with its calls alternating between two processes", async () => {
    const bindings = await generateSecrets();
    const { worker } = fakeCluster();
    const [a, b] = await Promise.all(
      [worker(), worker()].map((store) =>
        listen(createEnvironmentsHost([calculator], { mcp: { store } }), bindings),
      ),
    );
    if (!a || !b) throw new Error("no servers");
    servers.push(a, b);
    let turn = 0;
    const alternate = (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.port = String((turn++ % 2 === 0 ? a : b).port);
      return fetch(url, init);
    };
    const { client } = await connectMcp(`${a.url}/envs/calculator/mcp?split=train&index=3`, {
      fetch: alternate,
    });
    const log = await playExpertOverMcp(client, calculator, { bindings }, { split: "train", index: 3 });
    // Task train/3: 82 km/h for 5 hours then 60 km more: 82*5 + 60 = 410 + 60 = 470.
    expect(log.calls.map((c) => c.text.split("\n")[0])).toEqual([
      "470",
      "the episode is over: reward 1, return 1 over 2 steps",
    ]);
    expect(turn).toBeGreaterThanOrEqual(4);
  });

  it("answers store calls in order and reports a missing session as undefined", async () => {
    const { worker } = fakeCluster();
    const store = worker();
    const episode = episodeAt(1000);
    expect(await store.create("x", episode, 0)).toEqual({ ok: true });
    expect(await worker().get("x", 10)).toEqual(episode);
    expect(await store.update("x", 1, { ...episode, step: 2 }, 10)).toBe(false);
    expect(await store.update("x", 0, { ...episode, step: 1 }, 10)).toBe(true);
    expect(await store.get("x", 1000)).toBeUndefined();
    expect(await store.delete("x")).toBe(false);
  });

  it("holds each client to its bound across processes, and a nameless client only to the store's", async () => {
    const { worker } = fakeCluster(new MemorySessionStore(3, 1));
    const [a, b] = [worker(), worker()];
    expect(await a.create("a1", episodeAt(1000), 0, "10.0.0.1")).toEqual({ ok: true });
    // The same client through the other process: its bound (1) is the primary's count, not a process's.
    expect(await b.create("a2", episodeAt(1000), 0, "10.0.0.1")).toEqual({
      ok: false,
      reason: "client",
      limit: 1,
      retryAfterMs: 1000,
    });
    expect(await b.create("n1", episodeAt(1000), 0)).toEqual({ ok: true });
    expect(await a.create("n2", episodeAt(1000), 0)).toEqual({ ok: true });
    expect(await b.create("n3", episodeAt(2000), 500)).toEqual({
      ok: false,
      reason: "full",
      limit: 3,
      retryAfterMs: 500,
    });
  });
});
