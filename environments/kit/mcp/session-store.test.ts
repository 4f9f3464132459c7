import { describe, expect, it } from "vitest";
import { type McpEpisode, MemorySessionStore } from "./session-store.js";

const episode = (step: number, expiresAt: number): McpEpisode => ({
  token: `token-${step}`,
  step,
  done: false,
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

  it("holds at most maxSessions, evicting the one idle longest, and sweeps expired ones on create", async () => {
    const store = new MemorySessionStore(3);
    for (const id of ["a", "b", "c"]) await store.create(id, episode(0, 1000), 0);
    // One TTL (1000) throughout, as within one env. Stepping "a" at t=100 renews it to 1100, so "b"
    // is now the one idle longest.
    await store.update("a", 0, episode(1, 1100), 100);
    await store.create("d", episode(0, 1100), 100);
    expect(store.size).toBe(3);
    expect(await store.get("b", 100)).toBeUndefined();
    expect((await store.get("a", 100))?.step).toBe(1);

    // At t=1050 "c" (1000) has expired and a new session sweeps it; "a" and "d" (1100) stay.
    await store.create("e", episode(0, 2050), 1050);
    expect(store.size).toBe(3);
    expect(await store.get("c", 0)).toBeUndefined();
    expect(await store.delete("a")).toBe(true);
    expect(await store.delete("a")).toBe(false);
  });

  it("stays bounded under many more sessions than it may hold", async () => {
    const store = new MemorySessionStore(100);
    for (let i = 0; i < 10_000; i++) await store.create(`s${i}`, episode(0, 1e12), i);
    expect(store.size).toBe(100);
    expect(await store.get("s9999", 0)).toBeDefined();
    expect(await store.get("s9899", 0)).toBeUndefined();
  });
});
