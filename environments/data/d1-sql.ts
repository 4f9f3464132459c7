import type { Result } from "../../shared/result.js";

/** A built drizzle query: anything with `toSQL()`. */
export type BuiltQuery = { toSQL(): { sql: string; params: unknown[] } };

function literal(value: unknown): Result<string> {
  if (value === null || value === undefined) return { ok: true, value: "NULL" };
  if (typeof value === "number" && Number.isFinite(value)) return { ok: true, value: String(value) };
  if (typeof value === "bigint") return { ok: true, value: String(value) };
  if (typeof value === "string") return { ok: true, value: `'${value.replaceAll("'", "''")}'` };
  return { ok: false, error: `cannot write ${typeof value} as a SQL literal` };
}

/**
 * Renders built queries as one SQL script with the parameters inlined, for
 * `wrangler d1 execute --file`. Drizzle's SQLite dialect marks every parameter `?` and quotes
 * identifiers with `"`, so each `?` outside a string literal is a parameter.
 */
export function renderSqlScript(queries: readonly BuiltQuery[]): Result<string> {
  const out: string[] = [];
  for (const q of queries) {
    const { sql, params } = q.toSQL();
    const parts = sql.split("?");
    if (parts.length - 1 !== params.length) {
      return {
        ok: false,
        error: `query has ${parts.length - 1} placeholders for ${params.length} parameters`,
      };
    }
    let text = parts[0] ?? "";
    for (const [i, p] of params.entries()) {
      const lit = literal(p);
      if (!lit.ok) return lit;
      text += lit.value + (parts[i + 1] ?? "");
    }
    out.push(`${text};`);
  }
  return { ok: true, value: `${out.join("\n")}\n` };
}
