import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "../data/datasets.js";
import { openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { runImport } from "../node/import-command.js";
import { intro } from "./game.js";
import { ALFWORLD_DATASET } from "./import-games.js";
import { alfworldImported } from "./index.js";
import type { Task } from "./world.js";

const FIXTURES = fileURLToPath(new URL("../../tests/fixtures/alfworld/", import.meta.url));
const PICK = "train/pick_and_place_simple-Mug-None-CoffeeMachine-7";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-alfworld-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The fixture trials copied into a fresh folder, `change` applied to the named trial's files. */
async function trialsWith(change?: { trial: string; file: string; edit: (text: string) => string }) {
  const root = await mkdtemp(join(dir, "games-"));
  await cp(FIXTURES, root, { recursive: true });
  if (change) {
    const file = join(root, change.trial, change.file);
    await writeFile(file, change.edit(await readFile(file, "utf8")));
  }
  return root;
}

/** A game.tw-pddl edit: its pddl_problem rewritten. */
const problem = (edit: (p: string) => string) => (text: string) => {
  const game = JSON.parse(text) as { pddl_problem: string };
  return JSON.stringify({ ...game, pddl_problem: edit(game.pddl_problem) });
};

async function served(file: string) {
  const db = await openLocalDb(file);
  const bindings = { ...(await generateSecrets()), EDGEGYM_DB: db };
  const app = createEnvironmentsHost([alfworldImported]);
  const url = await new Promise<{ url: string; close(): Promise<void> }>((done) => {
    const server = serve(
      { fetch: (req) => app.fetch(req, bindings), port: 0, hostname: "127.0.0.1" },
      (info) =>
        done({
          url: `http://127.0.0.1:${(info as AddressInfo).port}/envs/alfworld-imported`,
          close: () => new Promise<void>((closed) => server.close(() => closed())),
        }),
    );
  });
  return { ...url, db };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("npm run data -- import alfworld <folder>", () => {
  it("imports each trial by its split folder, named and laid out as ALFWorld shows them", async () => {
    const file = join(dir, "splits.db");
    const r = await runImport({ kind: "alfworld", path: FIXTURES, db: file });
    expect(r).toMatchObject({
      ok: true,
      value: { dataset: "alfworld", counts: { train: 1, test: 1, test_unseen: 1 } },
    });
    expect(r.ok && r.value.refused).toBeUndefined();
    const db = await openLocalDb(file);
    const pick = (await getTask<Task>(db, ALFWORLD_DATASET, "train", 0)) as Task;
    const cool = (await getTask<Task>(db, ALFWORLD_DATASET, "test", 0)) as Task;
    const look = (await getTask<Task>(db, ALFWORLD_DATASET, "test_unseen", 0)) as Task;
    db.close();
    // The first of two ids in sorted order takes the higher number, as ALFWorld's demangler numbers them.
    expect(intro(pick)).toBe(
      "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a coffeemachine 1, a countertop 1, a fridge 1, a microwave 1, and a sinkbasin 1.\n\nYour task is to: put a mug in coffeemachine.",
    );
    expect(pick).toMatchObject({
      room: "FloorPlan7",
      family: "pick_and_place_simple",
      object: "mug",
      receptacle: "coffeemachine",
      fixed: ["houseplant 1"],
    });
    expect(pick.receptacles.filter((x) => x.opens).map((x) => x.name)).toEqual([
      "cabinet 2",
      "cabinet 1",
      "fridge 1",
      "microwave 1",
    ]);
    // The light switch lies in no receptacle: ALFWorld can't reach it either.
    expect(pick.objects).toEqual([
      { name: "apple 1", at: "fridge 1" },
      { name: "houseplant 1", at: "countertop 1" },
      { name: "knife 1", at: "countertop 1" },
      { name: "mug 1", at: "countertop 1" },
      { name: "mug 2", at: "cabinet 2" },
    ]);
    expect(cool).toMatchObject({
      family: "pick_cool_then_place_in_recep",
      receptacle: "diningtable",
      already: { cleaned: [], heated: [], cooled: ["apple 1"] },
    });
    expect(look).toMatchObject({
      family: "look_at_obj_in_light",
      object: "alarmclock",
      room: "FloorPlan301",
    });
    expect(look.receptacle).toBeUndefined();
  });

  it("serves the imported games, and the expert solves each to reward 1", async () => {
    const file = join(dir, "train.db");
    expect(await runImport({ kind: "alfworld", path: FIXTURES, split: "train", db: file })).toMatchObject({
      ok: true,
      value: { counts: { train: 3 } },
    });
    const s = await served(file);
    const manifest = await (await fetch(`${s.url}/v1/manifest`)).json();
    expect(manifest).toMatchObject({
      name: "alfworld-imported",
      splits: { train: 3, test: 0, test_unseen: 0 },
    });
    const played: string[][] = [];
    for (const index of [0, 1, 2]) {
      const session = await (await post(`${s.url}/v1/sessions`, { split: "train", index })).json();
      let token = session.session;
      let last = { reward: 0, done: false };
      const commands: string[] = [];
      while (!last.done && commands.length < 50) {
        const { action } = await (await post(`${s.url}/v1/expert`, { session: token })).json();
        commands.push(action.content);
        const step = await (await post(`${s.url}/v1/step`, { session: token, action })).json();
        token = step.session;
        last = step;
      }
      expect(last.reward, commands.join(" | ")).toBe(1);
      played.push(commands);
    }
    // Sorted by trial path: the train pick & place, then valid_seen's cool & place, then valid_unseen's lamp.
    expect(played[0]).toEqual([
      "go to countertop 1",
      "take mug 1 from countertop 1",
      "go to coffeemachine 1",
      "put mug 1 in/on coffeemachine 1",
    ]);
    // The apple in the fridge is already cool, so it goes straight to the table.
    expect(played[1]).toEqual([
      "go to fridge 1",
      "open fridge 1",
      "take apple 1 from fridge 1",
      "go to diningtable 1",
      "put apple 1 in/on diningtable 1",
    ]);
    expect(played[2]).toEqual([
      "go to desk 1",
      "take alarmclock 1 from desk 1",
      "go to sidetable 1",
      "use desklamp 1",
    ]);
    await s.close();
    s.db.close();
  });

  it("refuses what it can't play with one line per trial, and imports the rest", async () => {
    const cases: [Parameters<typeof trialsWith>[0], string][] = [
      [{ trial: PICK, file: "game.tw-pddl", edit: (t) => t.slice(0, 200) }, "game.tw-pddl is not JSON"],
      [
        {
          trial: PICK,
          file: "game.tw-pddl",
          edit: problem((p) =>
            p.replace("(inReceptacle ?o ?r)", "(or (inReceptacle ?o ?r) (holds agent1 ?o))"),
          ),
        },
        "the goal is none of the six families' (the goal uses 'or')",
      ],
      [
        {
          trial: PICK,
          file: "game.tw-pddl",
          edit: problem((p) => p.replace("(inReceptacle ?o ?r)", "(isSliced ?o) (inReceptacle ?o ?r)")),
        },
        "the goal is not pick_and_place_simple's goal",
      ],
      [
        {
          trial: PICK,
          file: "game.tw-pddl",
          edit: problem((p) => p.replace("(:init\n", "(:init\n(isDusty agent1)\n")),
        },
        "unknown predicate 'isdusty' in :init",
      ],
      [
        {
          trial: PICK,
          file: "game.tw-pddl",
          edit: problem((p) => p.replace(/\(receptacleAtLocation CoffeeMachine\S+ \S+\)/, "")),
        },
        "no coffeemachine to put the mug in",
      ],
      [
        {
          trial: PICK,
          file: "traj_data.json",
          edit: (t) => t.replace('"object_sliced": false', '"object_sliced": true'),
        },
        "the task slices its object (not supported)",
      ],
    ];
    for (const [change, why] of cases) {
      const root = await trialsWith(change);
      const r = await runImport({ kind: "alfworld", path: root, db: join(root, "data.db") });
      expect(r, why).toMatchObject({ ok: true, value: { counts: { test: 1, test_unseen: 1 } } });
      expect(r.ok && r.value.counts.train).toBeUndefined();
      // One line, naming the trial and why (a JSON error goes on with the parser's own words).
      const refused = r.ok ? (r.value.refused ?? []) : [];
      expect(refused, why).toHaveLength(1);
      expect(refused[0]?.startsWith(`${PICK}: ${why}`), refused[0]).toBe(true);
    }
  });

  it("fails when no trial can be played, or when given a file", async () => {
    const empty = await mkdtemp(join(dir, "none-"));
    expect(await runImport({ kind: "alfworld", path: empty, db: join(empty, "d.db") })).toEqual({
      ok: false,
      error: `${empty}: no traj_data.json under it`,
    });
    const r = await runImport({
      kind: "alfworld",
      path: join(FIXTURES, PICK, "traj_data.json"),
      db: join(empty, "d.db"),
    });
    expect(r.ok === false && r.error).toContain("give a folder of ALFWorld trials");
    const bare = await mkdtemp(join(dir, "bare-"));
    await cp(join(FIXTURES, PICK), bare, { recursive: true });
    const r3 = await runImport({ kind: "alfworld", path: bare, db: join(bare, "d.db") });
    expect(r3).toEqual({
      ok: false,
      error: `${bare}: no trial imported, 1 refused:\n.: no train, valid_seen or valid_unseen folder names its split; pass --split`,
    });
  });
});
