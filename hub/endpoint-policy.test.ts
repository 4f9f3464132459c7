import { describe, expect, it } from "vitest";
import { allowsPrivateUpstreams, checkEndpoint } from "./endpoint-policy.js";

const deployed = { allowPrivate: false };

describe("checkEndpoint", () => {
  it("refuses loopback, private, link-local, unique-local, unspecified and mapped literals", () => {
    for (const url of [
      "http://127.0.0.1:8787/envs/x",
      "http://127.255.255.254",
      "http://0x7f.1/", // URL normalises it to 127.0.0.1
      "http://2130706433/", // and this one too
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:10.0.0.1]/",
      "http://10.0.0.1",
      "http://172.16.0.1",
      "http://172.31.255.255",
      "http://192.168.0.1",
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]",
      "http://[fc00::1]",
      "http://[fd12:3456::1]",
      "http://0.0.0.0",
      "http://[::]",
      "http://100.64.0.1",
      "http://224.0.0.1",
      "http://[64:ff9b::a00:1]",
    ]) {
      expect(checkEndpoint(url, deployed).ok, url).toBe(false);
    }
  });

  it("refuses local names and schemes other than http(s)", () => {
    for (const url of [
      "http://localhost:8787",
      "http://LOCALHOST",
      "http://api.localhost",
      "http://localhost./",
      "http://metadata.google.internal/computeMetadata/v1",
      "http://printer.local",
      "http://nas.home.arpa",
      "ftp://example.com",
      "file:///etc/passwd",
      "gopher://example.com",
      "not a url",
    ]) {
      expect(checkEndpoint(url, deployed).ok, url).toBe(false);
    }
  });

  it("lets public addresses and names through, and private ones when allowed", () => {
    for (const url of [
      "https://env.example.com/envs/x",
      "http://8.8.8.8",
      "http://[2606:4700::1111]",
      "http://172.32.0.1",
    ]) {
      expect(checkEndpoint(url, deployed).ok, url).toBe(true);
    }
    expect(checkEndpoint("http://localhost:8788", { allowPrivate: true }).ok).toBe(true);
    expect(checkEndpoint("ftp://localhost", { allowPrivate: true }).ok).toBe(false);
  });

  it("refuses the hub's own origin, even when private addresses are allowed", () => {
    const hubOrigin = "http://localhost:8787";
    expect(
      checkEndpoint("http://localhost:8787/v1/envs/a/b@latest", { allowPrivate: true, hubOrigin }).ok,
    ).toBe(false);
    expect(checkEndpoint("http://LOCALHOST:8787/envs/calculator", { allowPrivate: true, hubOrigin }).ok).toBe(
      false,
    );
    expect(checkEndpoint("http://localhost:8788/envs/calculator", { allowPrivate: true, hubOrigin }).ok).toBe(
      true,
    );
  });

  it("reads HUB_ALLOW_PRIVATE_UPSTREAMS", () => {
    expect(allowsPrivateUpstreams({})).toBe(false);
    expect(allowsPrivateUpstreams({ HUB_ALLOW_PRIVATE_UPSTREAMS: "false" })).toBe(false);
    expect(allowsPrivateUpstreams({ HUB_ALLOW_PRIVATE_UPSTREAMS: "true" })).toBe(true);
  });
});
