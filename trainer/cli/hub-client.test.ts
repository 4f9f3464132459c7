import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hubFailure } from "../../hub/client.js";
import { DEFAULT_HUB_URL, readCredentials, resolveHub, writeCredentials } from "../client/credentials.js";
import { bootstrapSecret } from "./hub-client.js";

describe("hub credentials", () => {
  it("flags win over the environment, which wins over the credentials file", () => {
    const file = { url: "http://file.test", token: "egh_file" };
    const env = { EDGEGYM_HUB_URL: "http://env.test/", EDGEGYM_TOKEN: "egh_env" };
    expect(resolveHub({ hub: "http://flag.test", token: "egh_flag" }, env, file)).toEqual({
      url: "http://flag.test",
      token: "egh_flag",
    });
    expect(resolveHub({}, env, file)).toEqual({ url: "http://env.test", token: "egh_env" });
    expect(resolveHub({}, {}, file)).toEqual(file);
    expect(resolveHub({}, {}, {})).toEqual({ url: DEFAULT_HUB_URL });
  });

  it("keeps credentials in a file only its owner can read", () => {
    const path = join(mkdtempSync(join(tmpdir(), "edgegym-cred-")), "edgegym", "credentials.json");
    expect(readCredentials(path)).toEqual({});
    writeCredentials({ url: "http://hub.test", token: "egh_x" }, path);
    expect(readCredentials(path)).toEqual({ url: "http://hub.test", token: "egh_x" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe("hub errors and the bootstrap secret", () => {
  it("turns a problem into one line with every issue, and anything else into its status and body", () => {
    const problem = {
      type: "https://edgegym.dev/problems/invalid-request",
      title: "Request does not match the schema",
      status: 422,
      detail: "the request does not match the schema",
      code: "invalid_request",
      issues: [
        { path: "version", message: "Invalid semver" },
        { path: "", message: 'Unrecognized key: "x"' },
      ],
    };
    const e = hubFailure(422, JSON.stringify(problem));
    expect(e.message).toBe(
      'the request does not match the schema (invalid_request): version: Invalid semver; (body): Unrecognized key: "x"',
    );
    expect([e.exitCode, e.status]).toEqual([2, 422]);
    const gateway = hubFailure(502, "<html>Bad Gateway</html>");
    expect([gateway.message, gateway.exitCode]).toEqual(["HTTP 502: <html>Bad Gateway</html>", 1]);
  });

  it("reads the secret from a file (plain or npm run dev's JSON), else HUB_ADMIN_TOKEN, else says how", () => {
    const dir = mkdtempSync(join(tmpdir(), "edgegym-boot-"));
    writeFileSync(join(dir, "plain"), "s3cret\n");
    writeFileSync(join(dir, "local.json"), JSON.stringify({ bootstrap: "from-json", token: "egh_x" }));
    writeFileSync(join(dir, "other.json"), JSON.stringify({ token: "egh_x" }));
    expect(bootstrapSecret(join(dir, "plain"), {})).toBe("s3cret");
    expect(bootstrapSecret(join(dir, "local.json"), { HUB_ADMIN_TOKEN: "env" })).toBe("from-json");
    expect(bootstrapSecret(undefined, { HUB_ADMIN_TOKEN: "env" })).toBe("env");
    expect(() => bootstrapSecret(join(dir, "other.json"), {})).toThrow(/without a "bootstrap" field/);
    expect(() => bootstrapSecret(join(dir, "missing"), {})).toThrow(/cannot read --bootstrap-file .*ENOENT/);
    expect(() => bootstrapSecret(undefined, {})).toThrow(/set HUB_ADMIN_TOKEN or pass --bootstrap-file/);
  });
});
