import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LOCAL_DB, localDbPath, openLocalDb } from "./local-db.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MIGRATIONS = join(ROOT, "migrations");

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function appliedMigrations(file: string): Promise<number> {
  const db = await openLocalDb(file);
  const rows = await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations");
  db.close();
  return Number(rows.rows[0]?.n);
}

describe("the local datasets' database", () => {
  it("is EDGEGYM_DATA_DB when set, else .edgegym/data.db", () => {
    expect(localDbPath({ EDGEGYM_DATA_DB: "/data/mine.db" })).toBe("/data/mine.db");
    expect(localDbPath({})).toBe(DEFAULT_LOCAL_DB);
    // An empty value is unset, as in a shell's `EDGEGYM_DATA_DB= npm run envs`.
    expect(localDbPath({ EDGEGYM_DATA_DB: "" })).toBe(DEFAULT_LOCAL_DB);
  });

  it("waits for another process's write instead of failing with SQLITE_BUSY", async () => {
    dir = await mkdtemp(join(tmpdir(), "edgegym-local-db-"));
    const file = join(dir, "data.db");
    // Another process holds the write lock on the new file for a moment, as a server migrating it or
    // an import does: it says so on stdout once it has the lock, then commits 300 ms later.
    const holder = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createClient } from "@libsql/client";
        const db = createClient({ url: "file:" + process.argv[1], timeout: 30_000 });
        const tx = await db.transaction("write");
        await tx.execute("CREATE TABLE held (x INTEGER)");
        console.log("locked");
        setTimeout(async () => { await tx.commit(); db.close(); }, 300);`,
        file,
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = once(holder, "exit");
    const [line] = (await once(holder.stdout, "data")) as [Buffer];
    expect(line.toString().trim()).toBe("locked");
    const db = await openLocalDb(file);
    const tables = await db.$client.execute(
      "SELECT name FROM sqlite_master WHERE name IN ('held', 'datasets')",
    );
    expect(tables.rows.map((r) => r.name).sort()).toEqual(["datasets", "held"]);
    db.close();
    expect(await appliedMigrations(file)).toBe(
      (await readdir(MIGRATIONS)).filter((f) => f.endsWith(".sql")).length,
    );
    expect(await exited).toEqual([0, null]);
  });
});
