import { describe, expect, it } from "vitest";
import {
  EnvRefString,
  formatEnvRef,
  parseEnvId,
  parseEnvRef,
  parseHubEnv,
  parseNameAtVersion,
  Slug,
} from "./env-ref.js";

describe("env references", () => {
  it("parses owner/name@version and formats it back", () => {
    const ref = parseEnvRef("edgegym/calculator@1.2.0-beta.1+build.7");
    expect(ref).toEqual({ owner: "edgegym", name: "calculator", version: "1.2.0-beta.1+build.7" });
    expect(ref && formatEnvRef(ref)).toBe("edgegym/calculator@1.2.0-beta.1+build.7");
    expect(parseEnvRef("acme/guess-number@latest")).toEqual({
      owner: "acme",
      name: "guess-number",
      version: "latest",
    });
  });

  it("refuses other shapes: no version, capitals, extra slashes, names over 64 characters", () => {
    for (const text of [
      "acme/calc",
      "Acme/calc@1.0.0",
      "acme/calc/x@1.0.0",
      "acme@1.0.0",
      "acme/calc@",
      "",
    ]) {
      expect(parseEnvRef(text)).toBeNull();
      expect(EnvRefString.safeParse(text).success).toBe(false);
    }
    const n64 = "a".repeat(64);
    expect(parseEnvRef(`${n64}/${n64}@1.0.0`)).not.toBeNull();
    expect(parseEnvRef(`${n64}a/x@1.0.0`)).toBeNull();
    // 128 version characters are allowed, 129 are not.
    expect(parseEnvRef(`a/b@${"1".repeat(128)}`)).not.toBeNull();
    expect(parseEnvRef(`a/b@${"1".repeat(129)}`)).toBeNull();
  });

  it("reads owner/name with an optional version, name@version, and hub:// envs", () => {
    expect(parseEnvId("acme/calc")).toEqual({ owner: "acme", name: "calc" });
    expect(parseEnvId("acme/calc@2.0.0")).toEqual({ owner: "acme", name: "calc", version: "2.0.0" });
    expect(parseEnvId("acme")).toBeNull();
    expect(parseNameAtVersion("calc@latest")).toEqual({ name: "calc", version: "latest" });
    expect(parseNameAtVersion("calc")).toBeNull();
    expect(parseHubEnv("hub://acme/calc@1.0.0")).toEqual({ owner: "acme", name: "calc", version: "1.0.0" });
    expect(parseHubEnv("local:calc")).toBeNull();
    expect(parseHubEnv("hub://acme/calc")).toBeNull();
  });

  it("keeps the slug message the hub's problems quote", () => {
    const r = Slug.safeParse("Not_A_Slug");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe("must be 1-64 characters of [a-z0-9-]");
  });
});
