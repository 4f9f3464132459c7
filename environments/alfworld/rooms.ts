/**
 * Vocabulary of the generated households, after ALFRED's scenes: room kinds, the receptacle kinds each
 * may hold (how many, whether they open), and the object kinds found there with the receptacle kinds
 * each may lie in. Names are ALFWorld's (lowercase, no spaces: `sinkbasin`, `coffeemachine`).
 */
export type RoomKind = {
  name: string;
  /** Receptacle kind to [fewest, most] of it in a full-sized room; `open` when it opens and starts closed. */
  receptacles: Readonly<Record<string, { count: readonly [number, number]; open?: boolean }>>;
  /** Object kind to the receptacle kinds it may start in (and be put in). */
  objects: Readonly<Record<string, readonly string[]>>;
};

/** Objects `clean … with sinkbasin` acts on, and likewise heat (microwave) and cool (fridge). */
export const CLEANABLE = new Set([
  "apple",
  "bowl",
  "butterknife",
  "cloth",
  "cup",
  "fork",
  "knife",
  "lettuce",
  "mug",
  "pan",
  "plate",
  "pot",
  "potato",
  "soapbar",
  "spatula",
  "spoon",
  "tomato",
]);
export const HEATABLE = new Set(["apple", "bread", "cup", "egg", "mug", "plate", "potato", "tomato"]);
export const COOLABLE = new Set([
  "apple",
  "bowl",
  "bread",
  "cup",
  "egg",
  "lettuce",
  "mug",
  "pan",
  "plate",
  "pot",
  "potato",
  "tomato",
  "winebottle",
]);

const TABLES = ["countertop", "diningtable"];

export const ROOMS: readonly RoomKind[] = [
  {
    name: "kitchen",
    receptacles: {
      cabinet: { count: [2, 8], open: true },
      coffeemachine: { count: [1, 1] },
      countertop: { count: [1, 3] },
      diningtable: { count: [0, 1] },
      drawer: { count: [1, 5], open: true },
      fridge: { count: [1, 1], open: true },
      garbagecan: { count: [1, 1] },
      microwave: { count: [1, 1], open: true },
      shelf: { count: [0, 3] },
      sinkbasin: { count: [1, 1] },
      stoveburner: { count: [2, 4] },
      toaster: { count: [1, 1] },
    },
    objects: {
      apple: [...TABLES, "fridge", "garbagecan"],
      bowl: [...TABLES, "cabinet", "shelf", "fridge"],
      bread: [...TABLES, "fridge"],
      butterknife: [...TABLES, "drawer"],
      cup: [...TABLES, "cabinet", "fridge", "shelf"],
      egg: [...TABLES, "fridge", "garbagecan"],
      fork: [...TABLES, "drawer"],
      kettle: ["stoveburner", "countertop", "cabinet"],
      knife: [...TABLES, "drawer"],
      lettuce: [...TABLES, "fridge"],
      mug: [...TABLES, "cabinet", "coffeemachine", "shelf"],
      pan: ["stoveburner", "countertop", "cabinet"],
      peppershaker: [...TABLES, "cabinet", "shelf"],
      plate: [...TABLES, "cabinet", "shelf"],
      pot: ["stoveburner", "countertop", "cabinet"],
      potato: [...TABLES, "fridge", "garbagecan"],
      saltshaker: [...TABLES, "cabinet", "shelf"],
      spatula: [...TABLES, "drawer"],
      spoon: [...TABLES, "drawer"],
      tomato: [...TABLES, "fridge", "garbagecan"],
      winebottle: [...TABLES, "fridge", "cabinet"],
    },
  },
  {
    name: "livingroom",
    receptacles: {
      armchair: { count: [0, 2] },
      cabinet: { count: [0, 4], open: true },
      coffeetable: { count: [1, 1] },
      drawer: { count: [1, 4], open: true },
      garbagecan: { count: [1, 1] },
      shelf: { count: [0, 4] },
      sidetable: { count: [1, 2] },
      sofa: { count: [1, 1] },
      tvstand: { count: [0, 1] },
    },
    objects: {
      box: ["coffeetable", "sofa", "armchair", "shelf", "sidetable"],
      creditcard: ["coffeetable", "drawer", "sidetable", "sofa", "armchair"],
      keychain: ["coffeetable", "drawer", "sidetable", "shelf"],
      laptop: ["coffeetable", "sofa", "armchair", "sidetable"],
      newspaper: ["coffeetable", "sofa", "armchair", "garbagecan", "sidetable"],
      pillow: ["sofa", "armchair"],
      remotecontrol: ["coffeetable", "sofa", "armchair", "sidetable", "tvstand"],
      statue: ["coffeetable", "shelf", "sidetable", "cabinet"],
      vase: ["coffeetable", "shelf", "sidetable", "tvstand"],
      watch: ["coffeetable", "drawer", "sidetable", "shelf"],
    },
  },
  {
    name: "bedroom",
    receptacles: {
      bed: { count: [1, 1] },
      desk: { count: [1, 1] },
      drawer: { count: [1, 6], open: true },
      dresser: { count: [0, 1] },
      garbagecan: { count: [1, 1] },
      safe: { count: [0, 1], open: true },
      shelf: { count: [0, 4] },
      sidetable: { count: [0, 2] },
    },
    objects: {
      alarmclock: ["desk", "dresser", "sidetable", "shelf"],
      book: ["bed", "desk", "shelf", "sidetable", "drawer"],
      cd: ["desk", "drawer", "shelf", "safe", "garbagecan"],
      cellphone: ["bed", "desk", "dresser", "sidetable", "drawer"],
      creditcard: ["desk", "drawer", "dresser", "safe"],
      keychain: ["desk", "drawer", "dresser", "safe", "sidetable"],
      laptop: ["bed", "desk"],
      mug: ["desk", "shelf", "sidetable"],
      pen: ["desk", "drawer", "shelf", "sidetable"],
      pencil: ["desk", "drawer", "shelf", "garbagecan"],
      pillow: ["bed"],
    },
  },
  {
    name: "bathroom",
    receptacles: {
      bathtubbasin: { count: [1, 1] },
      cabinet: { count: [1, 4], open: true },
      countertop: { count: [1, 1] },
      drawer: { count: [0, 4], open: true },
      garbagecan: { count: [1, 1] },
      handtowelholder: { count: [0, 1] },
      shelf: { count: [0, 2] },
      sinkbasin: { count: [1, 2] },
      toilet: { count: [1, 1] },
      towelholder: { count: [1, 1] },
    },
    objects: {
      candle: ["countertop", "shelf", "toilet", "cabinet"],
      cloth: ["countertop", "cabinet", "bathtubbasin", "drawer", "sinkbasin"],
      handtowel: ["handtowelholder", "countertop"],
      soapbar: ["countertop", "bathtubbasin", "sinkbasin", "toilet", "cabinet"],
      soapbottle: ["countertop", "toilet", "shelf", "cabinet"],
      spraybottle: ["countertop", "toilet", "cabinet", "shelf"],
      tissuebox: ["countertop", "toilet", "shelf"],
      toiletpaper: ["toilet", "countertop", "cabinet", "drawer"],
      towel: ["towelholder", "bathtubbasin"],
    },
  },
];

/** Rooms where examining in light can be asked: a desklamp stands on a desk or side table there. */
export const LAMP_ON = ["desk", "sidetable"];
