import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { devArgs, migrationsLine, secretEnvFile, wranglerEnv } from "./wrangler.js";

describe("the local hub's wrangler", () => {
  it("gets the bootstrap secret in a private file, never on its command line", () => {
    const secret = "s3cret-bootstrap-value";
    const file = secretEnvFile({ HUB_ADMIN_TOKEN: secret });
    try {
      const args = devArgs(8787, ["/repo/.dev.vars", file.path], "/tmp/d1");
      expect(args.join(" ")).not.toContain(secret);
      expect(args).not.toContain("--var");
      expect(args).toEqual([
        "dev",
        "--port",
        "8787",
        "--env-file",
        "/repo/.dev.vars",
        "--env-file",
        file.path,
        "--persist-to",
        "/tmp/d1",
      ]);
      expect(readFileSync(file.path, "utf8")).toBe(`HUB_ADMIN_TOKEN='${secret}'\n`);
      expect(statSync(file.path).mode & 0o777).toBe(0o600);
    } finally {
      file.remove();
    }
    expect(() => statSync(file.path)).toThrow();
  });

  it("runs without telemetry, banner update check or Request.cf download", () => {
    expect(wranglerEnv({ PATH: "/bin" })).toEqual({
      PATH: `${resolve(import.meta.dirname, "../../node_modules/.bin")}:/bin`,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_HIDE_BANNER: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    });
  });

  it("sums wrangler's migration tables up in one line", () => {
    // Excerpts of wrangler 4.156's output on a fresh database and on an up-to-date one.
    const fresh = [
      "Migrations to be applied:",
      "│ 0000_init.sql             │",
      "? About to apply 9 migration(s)",
      "🌀 Executing on local database edgegym (00000000-0000-0000-0000-000000000000) from .wrangler/state/v3/d1:",
    ].join("\n");
    expect(migrationsLine(fresh)).toBe("hub: D1 migrations applied (9 new)");
    expect(migrationsLine("✅ No migrations to apply!")).toBe("hub: D1 migrations up to date");
  });
});
