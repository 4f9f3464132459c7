import { type GameState, LAMPS, locationOf } from "./game.js";
import { kindOf, type Task } from "./world.js";

/** The appliance and the state list of each family that changes an object before placing it. */
const CHANGE: Partial<Record<Task["family"], { act: string; at: string; done: keyof GameState }>> = {
  pick_clean_then_place_in_recep: { act: "clean", at: "sinkbasin", done: "cleaned" },
  pick_heat_then_place_in_recep: { act: "heat", at: "microwave", done: "heated" },
  pick_cool_then_place_in_recep: { act: "cool", at: "fridge", done: "cooled" },
};

/** Go to `r`, open it when closed, then `then`. */
function reach(task: Task, state: GameState, r: string, then: string): string {
  if (state.at !== r) return `go to ${r}`;
  const closed = task.receptacles.find((x) => x.name === r)?.opens === true && !state.open.includes(r);
  return closed ? `open ${r}` : then;
}

/**
 * The planner's next command, from the whole world (an oracle, as ALFWorld's handcoded expert is): take
 * the first of the goal's objects not yet done from where it lies (opening what is closed), clean, heat
 * or cool it at the first sink, microwave or fridge if the family asks, and put it in the first
 * receptacle of the goal's kind; for examining in light, carry it to the desk lamp and switch it on.
 */
export function expertCommand(task: Task, state: GameState): string {
  const first = (kind: string | undefined) =>
    task.receptacles.find((r) => kindOf(r.name) === kind)?.name ?? "";
  const pending = task.objects
    .map((o) => o.name)
    .filter((o) => kindOf(o) === task.object)
    .filter((o) => {
      const where = locationOf(task, state, o);
      return where === "hand" || kindOf(where ?? "") !== task.receptacle;
    });
  const held = state.holding;
  if (held === null || kindOf(held) !== task.object) {
    // The expert never holds anything else; a state that does puts it down where it stands.
    if (held !== null && state.at !== null) return `put ${held} in/on ${state.at}`;
    const next = pending[0] ?? "";
    const where = locationOf(task, state, next) ?? "";
    return reach(task, state, where, `take ${next} from ${where}`);
  }
  if (task.family === "look_at_obj_in_light") {
    const lamp = task.objects.find((o) => LAMPS.has(kindOf(o.name)));
    return reach(task, state, lamp?.at ?? "", `use ${lamp?.name ?? ""}`);
  }
  const change = CHANGE[task.family];
  const changed = change === undefined || (state[change.done] as string[]).includes(held);
  if (change !== undefined && !changed) {
    const appliance = first(change.at);
    return reach(task, state, appliance, `${change.act} ${held} with ${appliance}`);
  }
  const target = first(task.receptacle);
  return reach(task, state, target, `put ${held} in/on ${target}`);
}
