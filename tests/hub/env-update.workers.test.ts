import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hubClient, newEnv, newTeam, uniqueName } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

describe("PATCH /v1/envs/{owner}/{name}", () => {
  it("lets the owner change visibility and description; others see the change at once", async () => {
    const owner = await newTeam(hub);
    const other = await newTeam(hub);
    const { name } = await newEnv(hub, owner, { visibility: "public", description: "before" });
    const path = `/v1/envs/${owner.team}/${name}`;
    expect((await hub.call("GET", path, { token: other.token })).status).toBe(200);

    const r = await hub.call("PATCH", path, {
      token: owner.token,
      body: { visibility: "private", description: "after" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ visibility: "private", description: "after", latest: "1.0.0" });
    // Private now: another team gets the same 404 as for an env that does not exist.
    expect((await hub.call("GET", path, { token: other.token })).status).toBe(404);
    expect((await hub.call("GET", path, { token: owner.token })).body.description).toBe("after");
  });

  it("refuses teams other than the owner, even with a publish share, and empty or unknown fields", async () => {
    const owner = await newTeam(hub);
    const sharer = await newTeam(hub);
    const { name } = await newEnv(hub, owner, { visibility: "private" });
    const path = `/v1/envs/${owner.team}/${name}`;
    const share = await hub.call("POST", `${path}/shares`, {
      token: owner.token,
      body: { team: sharer.team, role: "publish" },
    });
    expect(share.status).toBe(201);
    const bySharer = await hub.call("PATCH", path, { token: sharer.token, body: { visibility: "public" } });
    expect([bySharer.status, bySharer.body.code]).toEqual([403, "forbidden"]);

    const empty = await hub.call("PATCH", path, { token: owner.token, body: {} });
    expect([empty.status, empty.body.code]).toEqual([422, "invalid_request"]);
    const unknown = await hub.call("PATCH", path, { token: owner.token, body: { visiblity: "public" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.issues).toContainEqual({ path: "", message: 'Unrecognized key: "visiblity"' });
    const bad = await hub.call("PATCH", path, { token: owner.token, body: { visibility: "secret" } });
    expect(bad.body.issues).toEqual([expect.objectContaining({ path: "visibility" })]);
  });
});

describe("publishing a version with no tasks", () => {
  it("is refused with the environment's own reason when every split counts 0 tasks", async () => {
    // calculator-gsm8k reads its tasks from the D1 dataset tables, which nothing filled in this file.
    const owner = await newTeam(hub);
    const name = uniqueName("gsm8k");
    const env = await hub.call("POST", "/v1/envs", {
      token: owner.token,
      body: { owner: owner.team, name, visibility: "private" },
    });
    expect(env.status).toBe(201);
    const v = await hub.call("POST", `/v1/envs/${owner.team}/${name}/versions`, {
      token: owner.token,
      body: { version: "1.0.0", builtin: "calculator-gsm8k" },
    });
    expect([v.status, v.body.code]).toEqual([422, "bad_manifest"]);
    expect(v.body.detail).toMatch(/has 0 tasks in every split \(train 0, test 0\)/);
    // The env's dataset_not_imported detail names the command that imports the data.
    expect(v.body.detail).toMatch(/the environment says: .*npm run data -- import/);
    expect(v.body.issues).toEqual([{ path: "splits", message: "every split has 0 tasks" }]);
    const detail = await hub.call("GET", `/v1/envs/${owner.team}/${name}`, { token: owner.token });
    expect(detail.body.versions).toEqual([]);
  });
});
