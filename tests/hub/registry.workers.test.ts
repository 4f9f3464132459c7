import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { hubClient, newEnv, newTeam, newToken, uniqueName } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

/**
 * A hub whose outbound fetches reach this worker, so an "external" endpoint is a real edgegym/v1 server
 * (the worker's own `/envs/calculator`). 127.0.0.1 is really fetched (a closed port: unreachable);
 * `bad.test` answers a wrong manifest, a fault no real env gives, so it is faked.
 */
const external = createHubApp({
  fetch: async (r) => {
    const host = new URL(r.url).hostname;
    if (host === "127.0.0.1") return fetch(r);
    if (host === "bad.test") return Response.json({ protocol: "edgegym/v0", name: "x" });
    return SELF.fetch(r);
  },
});
const viaExternal = hubClient(async (r) => external.fetch(r, env));

describe("environments", () => {
  it("creates, reads and refuses duplicates, bad names and other owners", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const name = uniqueName("env");
    const body = {
      owner: a.team,
      name,
      visibility: "public",
      description: "d",
      tags: ["math", "rl"],
      readme: "# hi",
    };
    const c = await hub.call("POST", "/v1/envs", { token: a.token, body });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ owner: a.team, name, tags: ["math", "rl"], latest: null, versions: [] });
    expect((await hub.call("POST", "/v1/envs", { token: a.token, body })).status).toBe(409);
    expect(
      (await hub.call("POST", "/v1/envs", { token: b.token, body: { ...body, name: uniqueName("e") } }))
        .status,
    ).toBe(403);
    const long = await hub.call("POST", "/v1/envs", {
      token: a.token,
      body: { ...body, name: "x".repeat(65) },
    });
    expect(long.status).toBe(422);
    const upper = await hub.call("POST", "/v1/envs", { token: a.token, body: { ...body, name: "Calc" } });
    expect(upper.status).toBe(422);
    const got = await hub.call("GET", `/v1/envs/${a.team}/${name}`);
    expect(got.status).toBe(200);
    expect(got.body.readme).toBe("# hi");
    expect((await hub.call("GET", `/v1/envs/${a.team}/nope`)).status).toBe(404);
  });

  it("publishes built-ins and external endpoints, storing the manifest, publicKey and contentHash", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a, { version: "1.0.0" });
    const manifest = (await SELF.fetch("http://hub.test/envs/calculator/v1/manifest").then((r) =>
      r.json(),
    )) as {
      contentHash: string;
      publicKey: unknown;
    };
    const ext = await viaExternal.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "1.1.0", endpoint: "http://envs.test/envs/calculator" },
    });
    expect(ext.status).toBe(201);
    expect(ext.body).toMatchObject({ source: "endpoint", contentHash: manifest.contentHash, yanked: false });
    const v = await hub.call("GET", `/v1/envs/${a.team}/${name}/versions/1.1.0`);
    expect(v.body.manifest.publicKey).toEqual(manifest.publicKey);
    // Immutable: the same version again is a conflict.
    const again = await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", builtin: "calculator" },
    });
    expect(again.status).toBe(409);
    const unknown = await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "2.0.0", builtin: "no-such-env" },
    });
    expect(unknown.status).toBe(422);
    for (const body of [
      { version: "2.0.0" },
      { version: "v2", builtin: "calculator" },
      { version: "2.0.0", builtin: "calculator", endpoint: "http://x.test" },
    ]) {
      expect(
        (await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, { token: a.token, body })).status,
      ).toBe(422);
    }
  });

  it("explains an unreachable endpoint and a bad manifest", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    const path = `/v1/envs/${a.team}/${name}/versions`;
    const down = await viaExternal.call("POST", path, {
      token: a.token,
      body: { version: "2.0.0", endpoint: "http://127.0.0.1:1/envs/x" },
    });
    expect(down.status).toBe(502);
    expect(down.body.code).toBe("upstream_unreachable");
    const missing = await viaExternal.call("POST", path, {
      token: a.token,
      body: { version: "2.0.0", endpoint: "http://envs.test/envs/no-such-env" },
    });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: "bad_manifest", detail: "GET manifest returned HTTP 404" });
    const wrong = await viaExternal.call("POST", path, {
      token: a.token,
      body: { version: "2.0.0", endpoint: "http://bad.test" },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe("bad_manifest");
    expect(wrong.body.issues.map((i: { path: string }) => i.path)).toContain("protocol");
    // Nothing was stored by the failures.
    expect((await hub.call("GET", `/v1/envs/${a.team}/${name}`)).body.versions).toHaveLength(1);
  });

  it("@latest is the highest stable unyanked version; yanked versions stay readable", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a, { version: "1.2.0" });
    const path = `/v1/envs/${a.team}/${name}`;
    for (const version of ["1.10.0", "2.0.0-beta.1", "1.9.0"]) {
      const r = await hub.call("POST", `${path}/versions`, {
        token: a.token,
        body: { version, builtin: "calculator" },
      });
      expect(r.status).toBe(201);
    }
    // Semver, not string order: 1.10.0 > 1.9.0 > 1.2.0; the beta is a prerelease.
    expect((await hub.call("GET", `${path}/versions/latest`)).body.version).toBe("1.10.0");
    const y = await hub.call("POST", `${path}/versions/1.10.0/yank`, { token: a.token });
    expect(y.body.yanked).toBe(true);
    expect((await hub.call("GET", path)).body.latest).toBe("1.9.0");
    expect((await hub.call("GET", `${path}/versions/1.10.0`)).body.yanked).toBe(true);
    expect((await hub.call("POST", `${path}/versions/7.7.7/yank`, { token: a.token })).status).toBe(404);
  });

  it("concurrent publishes of the same version: exactly one wins", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
          token: a.token,
          body: { version: "3.0.0", builtin: "calculator" },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe("sharing and visibility", () => {
  it("a private env is 404 to others until shared; read vs publish roles; revoke", async () => {
    const owner = await newTeam(hub);
    const other = await newTeam(hub);
    const { name } = await newEnv(hub, owner, { visibility: "private", description: "secret sauce zebra" });
    const path = `/v1/envs/${owner.team}/${name}`;
    const hidden = await hub.call("GET", path, { token: other.token });
    expect(hidden.status).toBe(404);
    expect((await hub.call("GET", "/v1/envs/nobody/nothing", { token: other.token })).body.detail).toMatch(
      /no environment/,
    );
    expect((await hub.call("GET", path)).status).toBe(404);
    const publishAsOther = await hub.call("POST", `${path}/versions`, {
      token: other.token,
      body: { version: "5.0.0", builtin: "calculator" },
    });
    expect(publishAsOther.status).toBe(404);

    const s = await hub.call("POST", `${path}/shares`, {
      token: owner.token,
      body: { team: other.team, role: "read" },
    });
    expect(s.status).toBe(201);
    expect((await hub.call("GET", path, { token: other.token })).status).toBe(200);
    const search = await hub.call("GET", "/v1/envs?q=zebra", { token: other.token });
    expect(search.body.envs.map((e: { name: string }) => e.name)).toContain(name);
    const readOnly = await hub.call("POST", `${path}/versions`, {
      token: other.token,
      body: { version: "5.0.0", builtin: "calculator" },
    });
    expect(readOnly.status).toBe(403);
    // A reader can't manage shares.
    expect(
      (
        await hub.call("POST", `${path}/shares`, {
          token: other.token,
          body: { team: other.team, role: "publish" },
        })
      ).status,
    ).toBe(403);

    await hub.call("POST", `${path}/shares`, {
      token: owner.token,
      body: { team: other.team, role: "publish" },
    });
    const pub = await hub.call("POST", `${path}/versions`, {
      token: other.token,
      body: { version: "5.0.0", builtin: "calculator" },
    });
    expect(pub.status).toBe(201);

    expect((await hub.call("DELETE", `${path}/shares/${other.team}`, { token: owner.token })).status).toBe(
      204,
    );
    expect((await hub.call("DELETE", `${path}/shares/${other.team}`, { token: owner.token })).status).toBe(
      404,
    );
    expect((await hub.call("GET", path, { token: other.token })).status).toBe(404);
    const gone = await hub.call("GET", "/v1/envs?q=zebra", { token: other.token });
    expect(gone.body.envs.map((e: { name: string }) => e.name)).not.toContain(name);
    const unknownTeam = await hub.call("POST", `${path}/shares`, {
      token: owner.token,
      body: { team: "no-such-team", role: "read" },
    });
    expect(unknownTeam.status).toBe(404);
    const self = await hub.call("POST", `${path}/shares`, {
      token: owner.token,
      body: { team: owner.team, role: "read" },
    });
    expect(self.status).toBe(422);
  });
});

describe("list and search", () => {
  it("filters by owner, tag, visibility and text, and pages with a cursor", async () => {
    const a = await newTeam(hub);
    const reader = await newToken(hub, a.team, ["read"]);
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const tags = i % 2 === 0 ? ["even", "math"] : ["odd"];
      const description = i === 3 ? "an unusual quokka habitat" : "plain";
      names.push(
        (await newEnv(hub, a, { visibility: i === 4 ? "private" : "public", tags, description })).name,
      );
    }
    const all = await hub.call("GET", `/v1/envs?owner=${a.team}`, { token: reader.token });
    expect(all.body.envs.map((e: { name: string }) => e.name)).toEqual(names);
    expect(all.body.envs[0].latest).toBe("1.0.0");
    const anon = await hub.call("GET", `/v1/envs?owner=${a.team}`);
    expect(anon.body.envs).toHaveLength(4);
    const even = await hub.call("GET", `/v1/envs?owner=${a.team}&tag=even`, { token: reader.token });
    expect(even.body.envs.map((e: { name: string }) => e.name)).toEqual([names[0], names[2], names[4]]);
    const priv = await hub.call("GET", `/v1/envs?owner=${a.team}&visibility=private`, {
      token: reader.token,
    });
    expect(priv.body.envs.map((e: { name: string }) => e.name)).toEqual([names[4]]);
    const text = await hub.call("GET", "/v1/envs?q=quokka habitat", { token: reader.token });
    expect(text.body.envs.map((e: { name: string }) => e.name)).toEqual([names[3]]);
    // Prefix match on the name, and FTS syntax in the query is just text.
    const prefix = await hub.call("GET", `/v1/envs?owner=${a.team}&q=${names[1]?.slice(0, 9)}`, {
      token: reader.token,
    });
    expect(prefix.body.envs.map((e: { name: string }) => e.name)).toContain(names[1]);
    expect((await hub.call("GET", '/v1/envs?q="unbalanced AND (', { token: reader.token })).status).toBe(200);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { envs: { name: string }[]; nextCursor: string | null } } = await hub.call(
        "GET",
        `/v1/envs?owner=${a.team}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { token: reader.token },
      );
      expect(page.body.envs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.envs.map((e) => e.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(names);
    // Text search pages the same way: every env but #3 is described as "plain".
    const found: string[] = [];
    let next: string | null = null;
    do {
      const page: { body: { envs: { name: string }[]; nextCursor: string | null } } = await hub.call(
        "GET",
        `/v1/envs?owner=${a.team}&q=plain&limit=2${next ? `&cursor=${next}` : ""}`,
        { token: reader.token },
      );
      found.push(...page.body.envs.map((e) => e.name));
      next = page.body.nextCursor;
    } while (next);
    expect(found).toEqual([names[0], names[1], names[2], names[4]]);
    expect((await hub.call("GET", "/v1/envs?limit=1000")).status).toBe(422);
    expect((await hub.call("GET", "/v1/envs?cursor=abc")).status).toBe(422);
  });
});
