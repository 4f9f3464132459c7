import { z } from "zod";
import { hashString, type Rng, rng } from "../../shared/random.js";
import { CLEANABLE, COOLABLE, HEATABLE, LAMP_ON, ROOMS, type RoomKind } from "./rooms.js";

/** Identity of the generator: part of the task source's id, so the env's content hash. */
export const ALFWORLD_GENERATOR = "alfworld-procedural/1";

/** ALFWorld's six task families (its `task_type`s), in its order. */
export const FAMILIES = [
  "pick_and_place_simple",
  "look_at_obj_in_light",
  "pick_clean_then_place_in_recep",
  "pick_heat_then_place_in_recep",
  "pick_cool_then_place_in_recep",
  "pick_two_obj_and_place",
] as const;
export type Family = (typeof FAMILIES)[number];

/** Difficulty levels; the top is the `alfworld` env itself. */
export const ALFWORLD_LEVELS = 3;

/** What a level changes: receptacles in a room (at most), objects in it, the families asked. */
export const LEVELS: Record<
  number,
  { receptacles: number; objects: readonly [number, number]; families: readonly Family[] }
> = {
  1: { receptacles: 4, objects: [2, 3], families: ["pick_and_place_simple"] },
  2: {
    receptacles: 8,
    objects: [4, 7],
    families: [
      "pick_and_place_simple",
      "pick_clean_then_place_in_recep",
      "pick_heat_then_place_in_recep",
      "pick_cool_then_place_in_recep",
    ],
  },
  3: { receptacles: Number.POSITIVE_INFINITY, objects: [8, 16], families: FAMILIES },
};

/**
 * Splits: `train`; `test`, ALFWorld's "seen" (valid_seen): rooms laid out as in train, objects placed
 * as in no train task; `test_unseen` (valid_unseen): rooms laid out as no train room is.
 */
export const ALFWORLD_SPLITS = { train: 10_000, test: 1_000, test_unseen: 1_000 } as const;

/** Layouts each room kind has per level for train (and seen test), and for unseen test. */
const TRAIN_LAYOUTS = 40;
const UNSEEN_LAYOUTS = 12;

export const Receptacle = z.object({ name: z.string(), opens: z.boolean() });
export const Task = z.object({
  room: z.string(),
  /** In the order the room lists them. */
  receptacles: z.array(Receptacle),
  /** Every object and where it starts; `desklamp 1` can be used, not taken. */
  objects: z.array(z.object({ name: z.string(), at: z.string() })),
  family: z.enum(FAMILIES),
  /** The object kind the goal names and, except for examining in light, the receptacle kind. */
  object: z.string(),
  receptacle: z.string().optional(),
  /** `put a clean mug in coffeemachine.` */
  goal: z.string(),
  /** Objects seen but not taken (ALFWorld's non-pickupable ones); only imported games have them. */
  fixed: z.array(z.string()).optional(),
  /** Objects already clean, hot or cool at the start; only imported games have them. */
  already: z
    .object({ cleaned: z.array(z.string()), heated: z.array(z.string()), cooled: z.array(z.string()) })
    .optional(),
});
export type Task = z.infer<typeof Task>;
export type Receptacle = z.infer<typeof Receptacle>;

export const kindOf = (name: string) => name.replace(/ \d+$/, "");

/** A room's receptacles: each kind's drawn count, at a lower level a drawn few of them. */
function drawLayout(room: RoomKind, level: number, r: Rng): Receptacle[] {
  const all = Object.entries(room.receptacles).flatMap(([kind, { count, open }]) =>
    Array.from({ length: r.int(count[0], count[1]) }, (_, i) => ({
      name: `${kind} ${i + 1}`,
      opens: open === true,
    })),
  );
  const cap = LEVELS[level]?.receptacles ?? all.length;
  const kept = all.length <= cap ? all : shuffled(all, r).slice(0, cap);
  // Renumbered per kind, listed as ALFWorld lists them: by kind, the highest number first.
  const counts = new Map<string, number>();
  const named = kept
    .sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }))
    .map((rec) => {
      const kind = kindOf(rec.name);
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      return { ...rec, name: `${kind} ${n}` };
    });
  return named.sort(byListing);
}

/** ALFWorld's listing order of receptacles: by kind, the highest number first. */
export function byListing(a: { name: string }, b: { name: string }): number {
  const k = kindOf(a.name).localeCompare(kindOf(b.name));
  return k !== 0 ? k : b.name.localeCompare(a.name, "en", { numeric: true });
}

function shuffled<T>(items: readonly T[], r: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const signature = (room: string, receptacles: readonly Receptacle[]) =>
  `${room}:${receptacles.map((x) => x.name).join(",")}`;

const layoutCache = new Map<string, Receptacle[][]>();

/**
 * The layouts of `room` at `level` that a split's tasks are in: train and seen test share
 * `TRAIN_LAYOUTS`; unseen test has its own, none laid out as a train one (same receptacles).
 */
export function layouts(room: RoomKind, level: number, unseen: boolean): Receptacle[][] {
  const key = `${room.name}/${level}/${unseen}`;
  const cached = layoutCache.get(key);
  if (cached) return cached;
  const draw = (pool: string, k: number) =>
    drawLayout(room, level, rng(hashString(`alfworld/layout/${pool}/l${level}/${room.name}/${k}`)));
  const train = Array.from({ length: TRAIN_LAYOUTS }, (_, k) => draw("train", k));
  let out = train;
  if (unseen) {
    const known = new Set(train.map((l) => signature(room.name, l)));
    out = [];
    for (let k = 0; out.length < UNSEEN_LAYOUTS && k < 10_000; k++) {
      const l = draw("unseen", k);
      const s = signature(room.name, l);
      if (!known.has(s)) {
        known.add(s);
        out.push(l);
      }
    }
  }
  layoutCache.set(key, out);
  return out;
}

/** Rooms in which a family can be asked: it needs a sink, microwave, fridge or desk lamp. */
const NEEDS: Record<Family, string | undefined> = {
  pick_and_place_simple: undefined,
  look_at_obj_in_light: "lamp",
  pick_clean_then_place_in_recep: "sinkbasin",
  pick_heat_then_place_in_recep: "microwave",
  pick_cool_then_place_in_recep: "fridge",
  pick_two_obj_and_place: undefined,
};
const ABLE: Partial<Record<Family, Set<string>>> = {
  pick_clean_then_place_in_recep: CLEANABLE,
  pick_heat_then_place_in_recep: HEATABLE,
  pick_cool_then_place_in_recep: COOLABLE,
};

/** Each family's goal texts, for its object and receptacle kinds (for examining in light, the lamp's). */
export const GOALS: Record<Family, readonly ((o: string, r: string) => string)[]> = {
  pick_and_place_simple: [(o, r) => `put a ${o} in ${r}.`, (o, r) => `put some ${o} on ${r}.`],
  look_at_obj_in_light: [
    (o, r) => `look at ${o} under the ${r || "desklamp"}.`,
    (o, r) => `examine the ${o} with the ${r || "desklamp"}.`,
  ],
  pick_clean_then_place_in_recep: [
    (o, r) => `put a clean ${o} in ${r}.`,
    (o, r) => `clean some ${o} and put it in ${r}.`,
  ],
  pick_heat_then_place_in_recep: [
    (o, r) => `put a hot ${o} in ${r}.`,
    (o, r) => `heat some ${o} and put it in ${r}.`,
  ],
  pick_cool_then_place_in_recep: [
    (o, r) => `put a cool ${o} in ${r}.`,
    (o, r) => `cool some ${o} and put it in ${r}.`,
  ],
  pick_two_obj_and_place: [
    (o, r) => `put two ${o} in ${r}.`,
    (o, r) => `find two ${o} and put them in ${r}.`,
  ],
};

/** Where objects of the room lie and what the goal asks, or undefined when this draw can't make one. */
function drawTask(r: Rng, level: number, unseen: boolean): Task | undefined {
  const spec = LEVELS[level] ?? (LEVELS[ALFWORLD_LEVELS] as (typeof LEVELS)[number]);
  const family = r.pick(spec.families);
  const room = r.pick(ROOMS);
  const receptacles = r.pick(layouts(room, level, unseen));
  const present = new Set(receptacles.map((x) => kindOf(x.name)));
  const need = NEEDS[family];
  const lampAt = receptacles.find((x) => LAMP_ON.includes(kindOf(x.name)))?.name;
  if (need === "lamp" ? lampAt === undefined : need !== undefined && !present.has(need)) return undefined;
  const where = (kind: string) => receptacles.filter((x) => room.objects[kind]?.includes(kindOf(x.name)));
  const kinds = Object.keys(room.objects).filter(
    (k) => where(k).length > 0 && (ABLE[family]?.has(k) ?? true),
  );
  if (kinds.length === 0) return undefined;
  const object = r.pick(kinds);
  const targets = [...new Set(where(object).map((x) => kindOf(x.name)))];
  const receptacle = family === "look_at_obj_in_light" ? undefined : r.pick(targets);
  // The goal's objects start anywhere they may lie but in a receptacle of the goal's kind.
  const starts = where(object).filter((x) => kindOf(x.name) !== receptacle);
  if (starts.length === 0) return undefined;
  const wanted = family === "pick_two_obj_and_place" ? r.int(2, 3) : r.int(1, 2);
  const placed: { kind: string; at: string }[] = Array.from({ length: wanted }, () => ({
    kind: object,
    at: r.pick(starts).name,
  }));
  const others = Object.keys(room.objects).filter((k) => k !== object && where(k).length > 0);
  const total = r.int(spec.objects[0], spec.objects[1]);
  while (placed.length < total && others.length > 0) {
    const kind = r.pick(others);
    placed.push({ kind, at: r.pick(where(kind)).name });
  }
  const counts = new Map<string, number>();
  const objects = placed.map(({ kind, at }) => {
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    return { name: `${kind} ${n}`, at };
  });
  if (family === "look_at_obj_in_light" && lampAt !== undefined)
    objects.push({ name: "desklamp 1", at: lampAt });
  const goal = r.pick(GOALS[family])(object, receptacle ?? "");
  return {
    room: room.name,
    receptacles,
    objects,
    family,
    object,
    ...(receptacle ? { receptacle } : {}),
    goal,
  };
}

/** A seen test task's placement: the room's layout and where every object starts. */
export const placementOf = (t: Task) =>
  `${signature(t.room, t.receptacles)}|${t.objects
    .map((o) => `${o.name}@${o.at}`)
    .sort()
    .join(",")}`;

/** Whether a placement belongs to seen test (a tenth of them, by hash) rather than train. */
const seenTest = (t: Task) => hashString(placementOf(t)) % 10 === 0;

/**
 * Task `index` of `split` at `level`: drawn from the split, level and index alone. Train and seen test
 * share layouts, and a placement is in one of them only (by its hash); unseen test has its own layouts.
 */
export function alfworldTask(split: string, index: number, level = ALFWORLD_LEVELS): Task {
  const r = rng(hashString(`alfworld/${split}/l${level}`) ^ Math.imul(index + 1, 0x85ebca6b));
  const unseen = split === "test_unseen";
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const t = drawTask(r, level, unseen);
    if (t === undefined) continue;
    if (!unseen && seenTest(t) !== (split === "test")) continue;
    return t;
  }
  throw new Error(`no ${split} task ${index} at level ${level}`);
}
