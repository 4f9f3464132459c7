import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { playExpert, protocolClient } from "../../tests/conformance/client.js";
import { saveDataset } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import { importAlfworld } from "./import-games.js";

const client = protocolClient({
  baseUrl: "http://edgegym.test/envs/alfworld-imported",
  fetch: (input, init) => SELF.fetch(input, init),
  secrets: {},
});

/** A small trial in ALFWorld's format (a mug on a countertop, a coffee machine), written here: workerd reads no files. */
const PROBLEM = `(define (problem plan_trial_1)
(:domain alfred)
(:objects agent1 - agent
  Mug_bar__plus_00_dot_10 - object
  CounterTop_bar__plus_01_dot_00 CoffeeMachine_bar__minus_01_dot_00 - receptacle
  loc_bar_1 loc_bar_2 loc_bar_3 - location)
(:init
  (receptacleType CounterTop_bar__plus_01_dot_00 CounterTopType)
  (receptacleType CoffeeMachine_bar__minus_01_dot_00 CoffeeMachineType)
  (objectType Mug_bar__plus_00_dot_10 MugType)
  (pickupable Mug_bar__plus_00_dot_10)
  (inReceptacle Mug_bar__plus_00_dot_10 CounterTop_bar__plus_01_dot_00)
  (atLocation agent1 loc_bar_3)
  (receptacleAtLocation CounterTop_bar__plus_01_dot_00 loc_bar_1)
  (receptacleAtLocation CoffeeMachine_bar__minus_01_dot_00 loc_bar_2))
(:goal (and (exists (?r - receptacle) (exists (?o - object) (and (inReceptacle ?o ?r)
  (objectType ?o MugType) (receptacleType ?r CoffeeMachineType)))))))`;
const FILES: Record<string, string> = {
  "train/pick_and_place_simple-Mug-None-CoffeeMachine-1/trial_1/traj_data.json": JSON.stringify({
    task_type: "pick_and_place_simple",
    pddl_params: {
      object_target: "Mug",
      parent_target: "CoffeeMachine",
      mrecep_target: "",
      object_sliced: false,
    },
  }),
  "train/pick_and_place_simple-Mug-None-CoffeeMachine-1/trial_1/game.tw-pddl": JSON.stringify({
    pddl_problem: PROBLEM,
    grammar: '"rhs": "Your task is to: put a mug in coffeemachine."',
    solvable: true,
  }),
};

it("serves imported ALFWorld games from the D1 binding inside workerd, and the expert solves one", async () => {
  const missing = await client.post("/v1/sessions", { split: "train", index: 0 });
  expect(((await missing.json()) as { code: string }).code).toBe("dataset_not_imported");

  const folder = { files: Object.keys(FILES), read: async (p: string) => FILES[p] ?? "" };
  const imported = await importAlfworld("", { source: "json_2.1.1", folder });
  const db = envDb({ bindings: { DB: env.DB } });
  if (!imported.ok || db === undefined) throw new Error(imported.ok ? "no D1 binding" : imported.error);
  await saveDataset(db, imported.value);

  const { actions, last } = await playExpert(client, { split: "train", index: 0 }, 50);
  expect(last.reward).toBe(1);
  expect(actions.map((a) => a.content)).toEqual([
    "go to countertop 1",
    "take mug 1 from countertop 1",
    "go to coffeemachine 1",
    "put mug 1 in/on coffeemachine 1",
  ]);
});
