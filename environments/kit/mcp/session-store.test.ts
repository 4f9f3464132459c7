import { describe, expect, it } from "vitest";
import { type McpEpisode, MemorySessionStore } from "./session-store.js";

const episode = (step: number, expiresAt: number, done = false): McpEpisode => ({
  token: `token-${step}`,
  step,
  done,
  episodeId: "e",
  task: { split: "train", index: 0 },
  system: "s",
  user: "u",
  return: 0,
  expiresAt,
});

describe("the in-memory MCP session store", () => {
  it("forgets a session at its expiry, not before", async () => {
    const store = new MemorySessionStore();
    await store.create("a", episode(0, 1000), 0);
    expect((await store.get("a", 999))?.token).toBe("token-0");
    expect(await store.get("a", 1000)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("advances only from the step the caller read, so racing calls cannot both win", async () => {
    const store = new MemorySessionStore();
    await store.create("a", episode(0, 1000), 0);
    expect(await store.update("a", 0, episode(1, 2000), 10)).toBe(true);
    expect(await store.update("a", 0, episode(1, 2000), 10)).toBe(false);
    expect((await store.get("a", 1500))?.step).toBe(1);
    expect(await store.update("missing", 0, episode(1, 2000), 10)).toBe(false);
  });

  it("never evicts a live session to make room: refuses with 503 `full` and when a place frees up", async () => {
    const store = new MemorySessionStore(3);
    for (const [id, at] of [
      ["a", 1000],
      ["b", 1200],
      ["c", 1500],
    ] as const) {
      expect(await store.create(id, episode(0, at), 0, id)).toEqual({ ok: true });
    }
    // Full, nothing finished, "a" expires first: at t=100 that is 1000 - 100 = 900 ms away.
    expect(await store.create("d", episode(0, 2000), 100, "d")).toEqual({
      ok: false,
      reason: "full",
      limit: 3,
      retryAfterMs: 900,
    });
    for (const id of ["a", "b", "c"]) expect(await store.get(id, 100)).toBeDefined();
    // A finished episode may go: "b" ends, so "d" takes its place and "a", "c" stay.
    expect(await store.update("b", 0, episode(1, 1300, true), 100)).toBe(true);
    expect(await store.create("d", episode(0, 2000), 100, "d")).toEqual({ ok: true });
    expect(await store.get("b", 100)).toBeUndefined();
    expect((await store.get("a", 100))?.step).toBe(0);
    expect(store.size).toBe(3);
  });

  it("holds each client to its bound, making room only among its own finished sessions", async () => {
    const store = new MemorySessionStore(100, 2);
    expect(await store.create("x1", episode(0, 1000), 0, "x")).toEqual({ ok: true });
    expect(await store.create("x2", episode(0, 1100), 0, "x")).toEqual({ ok: true });
    expect(await store.create("y1", episode(0, 1000), 0, "y")).toEqual({ ok: true });
    // x holds 2: refused until x1 expires at 1000 (1000 - 10 = 990 ms), while y may still open one.
    expect(await store.create("x3", episode(0, 1000), 10, "x")).toEqual({
      ok: false,
      reason: "client",
      limit: 2,
      retryAfterMs: 990,
    });
    expect(await store.create("y2", episode(0, 1000), 10, "y")).toEqual({ ok: true });
    // x finishes x2: its next session replaces that one, and x1 (live) stays.
    expect(await store.update("x2", 0, episode(1, 1100, true), 20)).toBe(true);
    expect(await store.create("x3", episode(0, 1000), 30, "x")).toEqual({ ok: true });
    expect(await store.get("x2", 30)).toBeUndefined();
    expect(await store.get("x1", 30)).toBeDefined();
    // A client without a name (no address known) has only the store's bound.
    for (let i = 0; i < 5; i++) expect((await store.create(`n${i}`, episode(0, 1000), 30)).ok).toBe(true);
  });

  it("sweeps each session at its own expiry when TTLs differ (one store for several envs)", async () => {
    const store = new MemorySessionStore(2);
    // A long-TTL session first, then a short one: written in that order, they expire the other way.
    await store.create("long", episode(0, 10_000), 0);
    await store.create("short", episode(0, 100), 0);
    // At t=200 "short" has expired; the new session takes its place, not the live "long"'s.
    expect(await store.create("new", episode(0, 300), 200)).toEqual({ ok: true });
    expect(store.size).toBe(2);
    expect((await store.get("long", 200))?.token).toBe("token-0");
    // Renewing moves a session's expiry: "new" stepped at 250 lives to 5000, past its first 300.
    expect(await store.update("new", 0, episode(1, 5000), 250)).toBe(true);
    await store.create("later", episode(0, 400), 350);
    expect((await store.get("new", 350))?.step).toBe(1);
  });

  it("stays bounded under many more sessions than it may hold, refusing the excess", async () => {
    const store = new MemorySessionStore(100);
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      if (!(await store.create(`s${i}`, episode(0, 1e12), i, `c${i}`)).ok) refused++;
    }
    expect([store.size, refused]).toEqual([100, 9_900]);
    expect(await store.get("s0", 0)).toBeDefined();
    expect(await store.get("s100", 0)).toBeUndefined();
  });
});
