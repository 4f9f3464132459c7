import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { proceduralTask } from "../../environments/calculator/tasks.js";
import { worldTask } from "../../environments/search/questions.js";
import { hubClient, newTeam, playEpisode, uniqueName } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

/** Publishes built-in `builtin` as a new public env of `owner` at 1.0.0; returns its gateway base. */
async function publish(owner: { team: string; token: string }, builtin: string): Promise<string> {
  const name = uniqueName(builtin);
  const e = await hub.call("POST", "/v1/envs", {
    token: owner.token,
    body: { owner: owner.team, name, visibility: "public", description: builtin, tags: ["level"] },
  });
  expect(e.status).toBe(201);
  const v = await hub.call("POST", `/v1/envs/${owner.team}/${name}/versions`, {
    token: owner.token,
    body: { version: "1.0.0", builtin },
  });
  expect(v.status, JSON.stringify(v.body)).toBe(201);
  return `/v1/envs/${owner.team}/${name}@1.0.0`;
}

describe("difficulty levels on the hub (inside workerd)", () => {
  it("each level is its own published env: its own content hash, its own tasks, played through the gateway", async () => {
    const a = await newTeam(hub);
    const bases = {
      l1: await publish(a, "calculator-l1"),
      top: await publish(a, "calculator"),
      search1: await publish(a, "search-l1"),
    };
    const hashes = await Promise.all(
      Object.values(bases).map(async (b) => (await hub.call("GET", `${b}/v1/manifest`)).body.contentHash),
    );
    expect(new Set(hashes).size).toBe(3);
    // The level's task 0 is the level's generator's task 0, not the top level's.
    const question = async (base: string) => {
      const s = await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 0 } });
      expect(s.status).toBe(201);
      return { session: s.body.session as string, text: s.body.observation.messages.at(-1).content };
    };
    const l1 = await question(bases.l1);
    expect(l1.text).toBe(proceduralTask("train", 0, 1).question);
    expect((await question(bases.top)).text).toBe(proceduralTask("train", 0).question);
    const search1 = await question(bases.search1);
    expect(search1.text).toBe(worldTask("train", 0, 1).question);
    // The expert solves both levels through the gateway (search-l1's corpus loads into the worker's D1).
    expect((await playEpisode(hub, undefined, bases.l1, l1.session, true)).reward).toBe(1);
    expect((await playEpisode(hub, undefined, bases.search1, search1.session, true)).reward).toBe(1);
  });
});
