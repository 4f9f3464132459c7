/**
 * The sessions one client holds, kept in a Durable Object of its own (named `mcp-client:<client>`),
 * so the bound holds across every Worker instance. Sessions tell it when they end (expiry alarm,
 * DELETE) and when their episode finishes; a note that was lost is repaired when the client is at its
 * bound, by asking the sessions whose known expiry has passed whether they still exist.
 */

/** What the ledger knows of one session. */
type Entry = {
  /** The session's expiry when last heard of (renewals are not reported, so it may live longer). */
  expiresAt: number;
  finished: boolean;
  /** When it was claimed: the finished one claimed first is evicted first. */
  since: number;
};

export type LedgerOp =
  | { op: "claim"; session: string; expiresAt: number; now: number; max: number }
  | { op: "release"; session: string }
  | { op: "finished"; session: string };

export type ClaimAnswer = { ok: true } | { ok: false; retryAfterMs: number };

export type LedgerStorage = {
  get<T>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  deleteAll(): Promise<void>;
};

/** What the ledger asks of a session's own object. */
export type SessionObjects = {
  /** The session's current expiry and whether it finished, or undefined when it is gone. */
  state(session: string, now: number): Promise<{ expiresAt: number; done: boolean } | undefined>;
  /** Deletes a finished session's storage without it reporting back. */
  evict(session: string): Promise<void>;
};

const KEY = "held";

export const ledgerName = (client: string) => `mcp-client:${client}`;

export async function ledgerOp(
  storage: LedgerStorage,
  op: LedgerOp,
  sessions: SessionObjects,
): Promise<ClaimAnswer | { ok: boolean }> {
  const read = async () => (await storage.get<Record<string, Entry>>(KEY)) ?? {};
  const write = async (held: Record<string, Entry>) =>
    Object.keys(held).length === 0 ? storage.deleteAll() : storage.put(KEY, held);
  if (op.op === "release" || op.op === "finished") {
    const held = await read();
    const entry = held[op.session];
    if (!entry) return { ok: false };
    if (op.op === "release") delete held[op.session];
    else entry.finished = true;
    await write(held);
    return { ok: true };
  }

  // Asked before deciding, and only at the bound: while it waits on other objects, this one may take
  // other requests, so the decision below reads the storage afresh and makes no call before writing.
  let checked: Map<string, { expiresAt: number; done: boolean } | undefined> | undefined;
  const before = await read();
  if (Object.keys(before).length >= op.max && !Object.values(before).some((e) => e.finished)) {
    checked = new Map();
    for (const [id, e] of Object.entries(before)) {
      if (e.expiresAt <= op.now) checked.set(id, await sessions.state(id, op.now));
    }
  }

  const held = await read();
  for (const [id, state] of checked ?? []) {
    const e = held[id];
    if (!e) continue;
    if (state) Object.assign(e, { expiresAt: state.expiresAt, finished: state.done || e.finished });
    else delete held[id];
  }
  let evicted: string | undefined;
  if (Object.keys(held).length >= op.max) {
    const finished = Object.entries(held)
      .filter(([, e]) => e.finished)
      .sort(([, a], [, b]) => a.since - b.since);
    evicted = finished[0]?.[0];
    if (evicted === undefined) {
      await write(held);
      const soonest = Math.min(...Object.values(held).map((e) => e.expiresAt));
      return { ok: false, retryAfterMs: Math.max(1000, soonest - op.now) };
    }
    delete held[evicted];
  }
  held[op.session] = { expiresAt: op.expiresAt, finished: false, since: op.now };
  await write(held);
  if (evicted !== undefined) await sessions.evict(evicted);
  return { ok: true };
}
