import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { openLocalDb } from "./local-db.js";
import { envSql, isD1 } from "./sql.js";

it("isD1 knows a D1 binding by its prepare and batch methods, and nothing else", () => {
  const fn = () => undefined;
  expect(isD1({ prepare: fn, batch: fn })).toBe(true);
  expect(isD1({ prepare: fn })).toBe(false);
  expect(isD1({ prepare: "no", batch: fn })).toBe(false);
  expect(isD1(null)).toBe(false);
  expect(isD1("DB")).toBe(false);
});

it("envSql runs raw SQL on a host's EDGEGYM_DB, one adapter per database, and finds none without one", async () => {
  const db = await openLocalDb(":memory:");
  try {
    const raw = envSql({ bindings: { EDGEGYM_DB: db } });
    expect(raw).toBeDefined();
    expect(envSql({ bindings: { EDGEGYM_DB: db } })).toBe(raw);
    await raw?.run(sql`CREATE TABLE t (n INTEGER)`);
    // Two inserts in one batch (one transaction), then 2 + 3 = 5.
    await raw?.batch([sql`INSERT INTO t VALUES (${2})`, sql`INSERT INTO t VALUES (${3})`]);
    expect(await raw?.all<{ total: number }>(sql`SELECT sum(n) AS total FROM t`)).toEqual([{ total: 5 }]);
    expect(envSql({ bindings: {} })).toBeUndefined();
    expect(envSql({ bindings: { DB: "not a database", EDGEGYM_DB: 42 } })).toBeUndefined();
  } finally {
    db.close();
  }
});
