import { expect, it } from "vitest";
import { envDb } from "./db.js";
import { openLocalDb } from "./local-db.js";

it("envDb passes a host's EDGEGYM_DB through and finds nothing without a database binding", async () => {
  const db = await openLocalDb(":memory:");
  expect(envDb({ bindings: { EDGEGYM_DB: db } })).toBe(db);
  expect(envDb({ bindings: {} })).toBeUndefined();
  // Values that are neither a D1 binding nor a drizzle database are ignored, not trusted.
  expect(envDb({ bindings: { DB: "not a database", EDGEGYM_DB: 42 } })).toBeUndefined();
  expect(envDb({ bindings: { DB: { prepare: "no" } } })).toBeUndefined();
  db.close();
});
