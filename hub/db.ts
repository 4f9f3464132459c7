import { drizzle } from "drizzle-orm/d1";
import * as schema from "../shared/db/schema.js";
import type { HubBindings } from "./env.js";

export type HubDb = ReturnType<typeof hubDb>;

/** Drizzle over the worker's D1 binding; cheap to create per request. */
export function hubDb(bindings: Pick<HubBindings, "DB">) {
  return drizzle(bindings.DB, { schema });
}

/** True when a D1 error is a UNIQUE / PRIMARY KEY violation: the loser of a create race. */
export function isUniqueViolation(e: unknown): boolean {
  const text = e instanceof Error ? `${e.message} ${e.cause instanceof Error ? e.cause.message : ""}` : "";
  return /UNIQUE constraint failed|PRIMARY KEY/i.test(text);
}
