import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_HUB_URL, readCredentials, resolveHub, writeCredentials } from "./hub-client.js";

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
