import { z } from "zod";
import { kindOf, type Task } from "./world.js";

/** The household as play changed it; where nothing moved, the task says where things are. */
export const GameState = z.object({
  /** The receptacle the agent stands at; null in the middle of the room, where every episode starts. */
  at: z.string().nullable(),
  holding: z.string().nullable(),
  /** Receptacles opened (every openable one starts closed). */
  open: z.array(z.string()),
  /** Objects put somewhere other than where they started. */
  moved: z.record(z.string(), z.string()),
  cleaned: z.array(z.string()),
  heated: z.array(z.string()),
  cooled: z.array(z.string()),
  /** Whether the desk lamp is on. */
  lit: z.boolean(),
});
export type GameState = z.infer<typeof GameState>;

export const START: GameState = {
  at: null,
  holding: null,
  open: [],
  moved: {},
  cleaned: [],
  heated: [],
  cooled: [],
  lit: false,
};

/** Lamps `use` switches: generated rooms have desk lamps; imported games may have floor lamps. */
export const LAMPS: ReadonlySet<string> = new Set(["desklamp", "floorlamp"]);
const APPLIANCE = { clean: "sinkbasin", heat: "microwave", cool: "fridge" } as const;
const DONE = { clean: "cleaned", heat: "heated", cool: "cooled" } as const;

/** `a mug 1, a knife 2, and a fork 1`, as ALFWorld lists (always `a`); `nothing` for none. */
function list(names: readonly string[]): string {
  if (names.length === 0) return "nothing";
  const items = names.map((n) => `a ${n}`);
  return items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(", ")}, and ${items.at(-1)}`;
}

/** Where an object is now: a receptacle, or `hand`. */
export function locationOf(task: Task, state: GameState, object: string): string | undefined {
  if (state.holding === object) return "hand";
  return state.moved[object] ?? task.objects.find((o) => o.name === object)?.at;
}

/** The objects in or on a receptacle now, in the task's order. */
export function contents(task: Task, state: GameState, receptacle: string): string[] {
  return task.objects.map((o) => o.name).filter((o) => locationOf(task, state, o) === receptacle);
}

const opens = (task: Task, r: string) => task.receptacles.find((x) => x.name === r)?.opens === true;
const reachable = (task: Task, state: GameState, r: string) => !opens(task, r) || state.open.includes(r);

/** What the agent sees of a receptacle it stands at. */
function describe(task: Task, state: GameState, r: string): string {
  if (!opens(task, r)) return `On the ${r}, you see ${list(contents(task, state, r))}.`;
  if (!state.open.includes(r)) return `The ${r} is closed.`;
  return `The ${r} is open. In it, you see ${list(contents(task, state, r))}.`;
}

/** The room and the task, as an episode's first observation shows them. */
export function intro(task: Task): string {
  return (
    "-= Welcome to TextWorld, ALFRED! =-\n\n" +
    `You are in the middle of a room. Looking quickly around you, you see ${list(task.receptacles.map((r) => r.name))}.\n\n` +
    `Your task is to: ${task.goal}`
  );
}

/** Every command that does something here, sorted, as ALFWorld's admissible commands are. */
export function admissible(task: Task, state: GameState): string[] {
  const out = ["look", "inventory"];
  for (const r of task.receptacles) if (r.name !== state.at) out.push(`go to ${r.name}`);
  const at = state.at;
  if (at !== null) {
    out.push(`examine ${at}`);
    if (opens(task, at)) out.push(state.open.includes(at) ? `close ${at}` : `open ${at}`);
    if (reachable(task, state, at)) {
      for (const o of contents(task, state, at)) {
        if (LAMPS.has(kindOf(o))) out.push(`use ${o}`);
        else if (state.holding === null && !task.fixed?.includes(o)) out.push(`take ${o} from ${at}`);
      }
      if (state.holding !== null) {
        out.push(`put ${state.holding} in/on ${at}`);
        for (const [act, kind] of Object.entries(APPLIANCE)) {
          if (kindOf(at) === kind) out.push(`${act} ${state.holding} with ${at}`);
        }
      }
    }
  }
  if (state.holding !== null) out.push(`examine ${state.holding}`);
  return [...new Set(out)].sort();
}

/** A command as typed, in the form `admissible` lists it: lowercase, single spaces, `in`/`on` for `in/on`. */
export function normalize(command: string): string {
  const c = command
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.!]+$/, "");
  return c.replace(/^(put .+?) (?:in|on|in\/on|into|onto) (.+)$/, "$1 in/on $2");
}

/** A task's first state: START, with what an imported game has already cleaned, heated or cooled. */
export const startOf = (task: Task): GameState => (task.already ? { ...START, ...task.already } : START);

export type Played = { text: string; state: GameState; valid: boolean };

/** One command: what the agent sees after it and the new state; anything else is `Nothing happens.` */
export function play(task: Task, state: GameState, command: string): Played {
  const c = normalize(command);
  const nothing: Played = { text: "Nothing happens.", state, valid: false };
  if (!admissible(task, state).includes(c)) return nothing;
  const at = state.at;
  if (c === "look") {
    const text =
      at === null
        ? `You are in the middle of a room. Looking quickly around you, you see ${list(task.receptacles.map((r) => r.name))}.`
        : `You are facing the ${at}. ${describe(task, state, at)}`;
    return { text, state, valid: true };
  }
  if (c === "inventory") {
    const text =
      state.holding === null ? "You are not carrying anything." : `You are carrying: a ${state.holding}.`;
    return { text, state, valid: true };
  }
  const done = (text: string, next: GameState = state): Played => ({ text, state: next, valid: true });
  const verbs: [RegExp, (m: string[]) => Played][] = [
    [
      /^go to (.+)$/,
      ([, r = ""]) =>
        done(`You arrive at ${r}. ${describe(task, { ...state, at: r }, r)}`, { ...state, at: r }),
    ],
    [
      /^open (.+)$/,
      ([, r = ""]) => {
        const next = { ...state, open: [...state.open, r] };
        return done(
          `You open the ${r}. The ${r} is open. In it, you see ${list(contents(task, next, r))}.`,
          next,
        );
      },
    ],
    [
      /^close (.+)$/,
      ([, r = ""]) => done(`You close the ${r}.`, { ...state, open: state.open.filter((x) => x !== r) }),
    ],
    [
      /^take (.+) from (.+)$/,
      ([, o = "", r = ""]) => done(`You pick up the ${o} from the ${r}.`, { ...state, holding: o }),
    ],
    [
      /^put (.+) in\/on (.+)$/,
      ([, o = "", r = ""]) =>
        done(`You put the ${o} in/on the ${r}.`, {
          ...state,
          holding: null,
          moved: { ...state.moved, [o]: r },
        }),
    ],
    [
      /^(clean|heat|cool) (.+) with (.+)$/,
      ([, act = "", o = "", r = ""]) => {
        const list = DONE[act as keyof typeof DONE];
        return done(`You ${act} the ${o} using the ${r}.`, {
          ...state,
          [list]: [...new Set([...state[list], o])],
        });
      },
    ],
    [
      /^use (.+)$/,
      ([, l = ""]) => done(`You turn ${state.lit ? "off" : "on"} the ${l}.`, { ...state, lit: !state.lit }),
    ],
    [
      /^examine (.+)$/,
      ([, x = ""]) => done(x === at ? describe(task, state, x) : `There's nothing special about ${x}.`),
    ],
  ];
  for (const [pattern, run] of verbs) {
    const m = pattern.exec(c);
    if (m) return run([...m]);
  }
  return nothing;
}

/** How many of the goal's objects are done: in a receptacle of its kind and cleaned, heated or cooled as asked. */
export function placed(task: Task, state: GameState): number {
  const need =
    task.family === "pick_clean_then_place_in_recep"
      ? state.cleaned
      : task.family === "pick_heat_then_place_in_recep"
        ? state.heated
        : task.family === "pick_cool_then_place_in_recep"
          ? state.cooled
          : undefined;
  return task.objects.filter((o) => {
    if (kindOf(o.name) !== task.object) return false;
    const where = locationOf(task, state, o.name);
    return (
      where !== "hand" &&
      where !== undefined &&
      kindOf(where) === task.receptacle &&
      (need?.includes(o.name) ?? true)
    );
  }).length;
}

/** Whether the goal holds: ALFWorld's goal conditions for the task's family. */
export function solved(task: Task, state: GameState): boolean {
  if (task.family === "look_at_obj_in_light") {
    const lamp = task.objects.find((o) => LAMPS.has(kindOf(o.name)))?.at;
    return state.lit && state.at === lamp && state.holding !== null && kindOf(state.holding) === task.object;
  }
  return placed(task, state) >= (task.family === "pick_two_obj_and_place" ? 2 : 1);
}
