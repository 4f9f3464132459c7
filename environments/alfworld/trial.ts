import { z } from "zod";
import type { Result } from "../../shared/result.js";
import { LAMPS, solved, startOf } from "./game.js";
import { type Atom, atoms, flattenGoal, matchAtoms, parseSexps, type Sexp, section } from "./pddl.js";
import { byListing, FAMILIES, type Family, GOALS, kindOf, type Task } from "./world.js";

/** The fields of ALFWorld's `game.tw-pddl` (a JSON file) that an import reads. */
const GameFile = z.looseObject({
  pddl_problem: z.string(),
  grammar: z.string().optional(),
  solvable: z.boolean().nullish(),
});
/** The fields of ALFRED's `traj_data.json` that an import reads. */
const TrajData = z.looseObject({
  task_type: z.string(),
  pddl_params: z
    .looseObject({ mrecep_target: z.string().nullish(), object_sliced: z.boolean().optional() })
    .optional(),
  scene: z.looseObject({ floor_plan: z.string().optional() }).optional(),
});

/** Each family's goal as ALFWorld's problems state it (lowercased); `$o`, `$r`, `$t` are the type constants. */
const GOAL_PATTERNS: Record<Family, Atom[]> = {
  pick_and_place_simple: atoms("(inreceptacle ?o ?r) (objecttype ?o $o) (receptacletype ?r $r)"),
  look_at_obj_in_light: atoms(
    "(objecttype ?t $t) (toggleable ?t) (istoggled ?t) (receptacleatlocation ?r ?l) (atlocation ?a ?l) " +
      "(inreceptacle ?t ?r) (objecttype ?o $o) (holds ?b ?o)",
  ),
  pick_clean_then_place_in_recep: atoms(
    "(cleanable ?o) (objecttype ?o $o) (receptacletype ?r $r) (isclean ?o) (inreceptacle ?o ?r)",
  ),
  pick_heat_then_place_in_recep: atoms(
    "(heatable ?o) (objecttype ?o $o) (receptacletype ?r $r) (ishot ?o) (inreceptacle ?o ?r)",
  ),
  pick_cool_then_place_in_recep: atoms(
    "(coolable ?o) (objecttype ?o $o) (receptacletype ?r $r) (iscool ?o) (inreceptacle ?o ?r)",
  ),
  pick_two_obj_and_place: atoms(
    "(objecttype ?p $o) (receptacletype ?r $r) (inreceptacle ?p ?r) (distinct ?p ?q) " +
      "(objecttype ?q $o) (receptacletype ?r $r) (inreceptacle ?q ?r)",
  ),
};

/** The predicates of ALFWorld's domain (`alfred.pddl`), lowercased; any other in `:init` is refused. */
const KNOWN = new Set(
  "atlocation receptacleatlocation objectatlocation openable opened inreceptacle isreceptacleobject inreceptacleobject isreceptacleobjectfull wasinreceptacle checked examined receptacletype cancontain objecttype holds holdsany holdsanyreceptacleobject full isclean cleanable ishot heatable iscool coolable pickupable moveable toggleable ison istoggled sliceable issliced".split(
    " ",
  ),
);
/** Facts a start state may hold that the engine keeps no record of and that no goal reads at the start. */
const REFUSED: Record<string, string> = {
  opened: "a receptacle starts open (every receptacle here starts closed)",
  holds: "the agent starts holding something",
  holdsany: "the agent starts holding something",
  issliced: "an object starts sliced",
};

/** `MugType` (lowercased) as the kind `mug`. */
const kindOfType = (t: string) => t.replace(/type$/, "");

/**
 * ALFWorld's display names of a problem's objects (its `Demangler`): the id's part before `_bar_`
 * (plus `basin` for sink and bathtub basins), numbered per name over the ids in sorted order, the first
 * id getting the highest number.
 */
function displayNames(ids: readonly string[]): Map<string, string> {
  const base = (id: string) => {
    const [head = id] = id.split("_bar_");
    return id.includes("basin") ? `${head}basin` : head;
  };
  const sorted = [...ids].filter((id) => id.includes("_bar_")).sort();
  const left = new Map<string, number>();
  for (const id of sorted) left.set(base(id), (left.get(base(id)) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const id of sorted) {
    const n = left.get(base(id)) ?? 0;
    left.set(base(id), n - 1);
    out.set(id, `${base(id)} ${n}`);
  }
  return out;
}

/** The names `:objects` declares (`a b - object c - receptacle`): every symbol but `-` and the type after it. */
function declared(objects: readonly Sexp[]): string[] {
  return objects.filter((x, i): x is string => typeof x === "string" && x !== "-" && objects[i - 1] !== "-");
}

/** The goal text the game's grammar carries (`Your task is to: … .`), or the family's first template. */
function goalText(grammar: string | undefined, family: Family, object: string, second: string): string {
  const m = /Your task is to: ((?:[^"\\]|\\.)*)"/.exec(grammar ?? "");
  if (m?.[1] !== undefined && !m[1].includes("UNKNOWN GOAL")) {
    try {
      return (JSON.parse(`"${m[1]}"`) as string).trim();
    } catch {
      // A grammar whose goal is no JSON string: the template below says the same goal.
    }
  }
  const [first] = GOALS[family];
  return first ? first(object, second) : "";
}

/** One trial folder's files as a task of edgegym's alfworld engine, or the one reason it can't be. */
export function trialTask(trajText: string, gameText: string): Result<Task> {
  const json = (text: string, file: string): Result<unknown> => {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (e) {
      return { ok: false, error: `${file} is not JSON (${(e as Error).message})` };
    }
  };
  const trajJson = json(trajText, "traj_data.json");
  if (!trajJson.ok) return trajJson;
  const gameJson = json(gameText, "game.tw-pddl");
  if (!gameJson.ok) return gameJson;
  const traj = TrajData.safeParse(trajJson.value);
  if (!traj.success) return { ok: false, error: "traj_data.json has no task_type" };
  const game = GameFile.safeParse(gameJson.value);
  if (!game.success) return { ok: false, error: "game.tw-pddl has no pddl_problem string" };
  if (game.data.solvable === false) return { ok: false, error: "game.tw-pddl says solvable: false" };
  const family = FAMILIES.find((f) => f === traj.data.task_type);
  if (family === undefined)
    return { ok: false, error: `task_type ${traj.data.task_type} is none of the six` };
  const params = traj.data.pddl_params;
  if (params?.object_sliced) return { ok: false, error: "the task slices its object (not supported)" };
  if (params?.mrecep_target)
    return { ok: false, error: "the task uses a movable receptacle (not supported)" };

  const parsed = parseSexps(game.data.pddl_problem);
  if (!parsed.ok) return { ok: false, error: `pddl_problem: ${parsed.error}` };
  const [define] = parsed.value;
  if (!Array.isArray(define) || define[0] !== "define")
    return { ok: false, error: "pddl_problem has no (define …)" };
  const init = section(define, ":init");
  const [goal] = section(define, ":goal") ?? [];
  if (init === undefined || goal === undefined)
    return { ok: false, error: "pddl_problem lacks :init or :goal" };

  const facts = new Map<string, string[][]>();
  for (const f of init) {
    if (!Array.isArray(f) || typeof f[0] !== "string")
      return { ok: false, error: "an :init fact is not a list" };
    if (f[0] === "=") continue; // distances and costs: the engine has no travel cost
    if (!KNOWN.has(f[0])) return { ok: false, error: `unknown predicate '${f[0]}' in :init` };
    const refused = REFUSED[f[0]];
    if (refused !== undefined) return { ok: false, error: refused };
    const list = facts.get(f[0]) ?? [];
    list.push(f.slice(1).map(String));
    facts.set(f[0], list);
  }
  const of = (pred: string) => facts.get(pred) ?? [];
  const typeOf = new Map(
    [...of("objecttype"), ...of("receptacletype")].map(([x = "", t = ""]) => [x, kindOfType(t)]),
  );
  const names = displayNames(declared(section(define, ":objects") ?? []));
  const nameOf = (id: string) => names.get(id) ?? id;
  for (const [id, kind] of typeOf) {
    if (names.has(id) && kindOf(nameOf(id)) !== kind) {
      return { ok: false, error: `${id} is named '${nameOf(id)}' but its type is ${kind}` };
    }
  }

  const listed = new Set(of("receptacleatlocation").map(([r = ""]) => r));
  const openable = new Set(of("openable").map(([r = ""]) => r));
  const receptacles = [...listed].map((r) => ({ name: nameOf(r), opens: openable.has(r) })).sort(byListing);
  const pickupable = new Set(of("pickupable").map(([o = ""]) => o));
  const where = new Map<string, string[]>();
  for (const [o = "", r = ""] of of("inreceptacle")) {
    if (listed.has(r) && of("objecttype").some(([x]) => x === o)) where.set(o, [...(where.get(o) ?? []), r]);
  }
  const objects: Task["objects"] = [];
  const fixed: string[] = [];
  for (const [o, rs] of where) {
    if (rs.length > 1) return { ok: false, error: `${nameOf(o)} is in ${rs.length} receptacles at once` };
    objects.push({ name: nameOf(o), at: nameOf(rs[0] as string) });
    if (!pickupable.has(o) && !LAMPS.has(typeOf.get(o) ?? "")) fixed.push(nameOf(o));
  }
  objects.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));

  const flat = flattenGoal(goal);
  if (!flat.ok) return { ok: false, error: `the goal is none of the six families' (${flat.error})` };
  const bound = matchAtoms(GOAL_PATTERNS[family], flat.value);
  if (bound === undefined) return { ok: false, error: `the goal is not ${family}'s goal` };
  const object = kindOfType(bound.get("$o") ?? "");
  const second = kindOfType(bound.get("$r") ?? bound.get("$t") ?? "");
  const goalObjects = objects.filter((o) => kindOf(o.name) === object && !fixed.includes(o.name));
  const need = family === "pick_two_obj_and_place" ? 2 : 1;
  if (goalObjects.length < need) return { ok: false, error: `fewer than ${need} ${object} to take` };
  const lamps = objects.filter((o) => LAMPS.has(kindOf(o.name)));
  if (family === "look_at_obj_in_light") {
    if (lamps.length !== 1 || kindOf(lamps[0]?.name ?? "") !== second) {
      return {
        ok: false,
        error: `the room has ${lamps.length} lamps; the engine switches exactly one ${second}`,
      };
    }
  } else if (!receptacles.some((r) => kindOf(r.name) === second)) {
    return { ok: false, error: `no ${second} to put the ${object} in` };
  }
  const already = (pred: string) =>
    of(pred)
      .map(([o = ""]) => o)
      .filter((o) => where.has(o))
      .map(nameOf);
  const changed = { cleaned: already("isclean"), heated: already("ishot"), cooled: already("iscool") };
  const task: Task = {
    room: traj.data.scene?.floor_plan ?? "imported",
    receptacles,
    objects,
    family,
    object,
    ...(family === "look_at_obj_in_light" ? {} : { receptacle: second }),
    goal: goalText(game.data.grammar, family, object, second),
    ...(fixed.length > 0 ? { fixed } : {}),
    ...(Object.values(changed).some((l) => l.length > 0) ? { already: changed } : {}),
  };
  if (solved(task, startOf(task))) return { ok: false, error: "the goal already holds at the start" };
  return { ok: true, value: task };
}
