import { rng } from "../../shared/random.js";
import { syllableWord } from "../kit/syllable-word.js";
import type { Passage } from "./task.js";

/**
 * A seeded fictional world: countries, cities, people, organisations and works linked by relations
 * (born in, works for, founded by, created by, headquartered in). Names are made of random syllables,
 * so a model cannot know the answers; every passage states only its own entity's facts, so a
 * question about a relation of a relation needs two searches.
 */

export type Country = { name: string; capital: number };
export type City = { name: string; country: number; founded: number; river: string };
export type Person = {
  name: string;
  born: number;
  city: number;
  occupation: string;
  employer: number;
};
export type Organisation = { name: string; kind: string; founded: number; founder: number; city: number };
export type Work = { title: string; kind: string; year: number; creator: number };

export type World = {
  countries: Country[];
  cities: City[];
  people: Person[];
  orgs: Organisation[];
  works: Work[];
};

/** Entity counts; `passages = countries + cities + people + orgs + works`. */
export type WorldSize = { countries: number; cities: number; people: number; orgs: number; works: number };

export const DEFAULT_WORLD_SIZE: WorldSize = { countries: 8, cities: 48, people: 400, orgs: 60, works: 300 };

const OCCUPATIONS = [
  "painter",
  "novelist",
  "composer",
  "architect",
  "physicist",
  "sculptor",
  "poet",
  "engineer",
];
const ORG_KINDS = ["university", "orchestra", "publishing house", "film studio", "shipyard", "observatory"];
const ORG_SUFFIX: Record<string, string> = {
  university: "University",
  orchestra: "Philharmonic",
  "publishing house": "Press",
  "film studio": "Pictures",
  shipyard: "Shipworks",
  observatory: "Observatory",
};
const WORK_KINDS = ["novel", "film", "album", "opera", "painting", "poem"];
const ADJECTIVES = (
  "Silent Amber Hollow Crimson Distant Frozen Gilded Quiet Wandering Broken Hidden Last Northern Pale " +
  "Restless Scarlet Sleeping Velvet Winter Burning Copper Endless Golden Iron Lonely"
).split(" ");
const NOUNS = (
  "Orchard Lantern Harbour Meadow Tower River Garden Mirror Voyage Archive Bridge Compass Feather Glass " +
  "Island Kingdom Lighthouse Mountain Shadow Signal Staircase Tide Valley Window Citadel"
).split(" ");
const RIVERS = ["Vel", "Ossa", "Marn", "Tiber", "Kel", "Ardu", "Sorn", "Lys"];

/** Calls `make` until it returns a name not used yet anywhere in the world. */
function unique(used: Set<string>, make: () => string): string {
  for (;;) {
    const name = make();
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

/**
 * The world of `seed`: the same seed, size and `reserved` always give the same world. No name in it is
 * one of `reserved` (another world's names, so that two worlds share no title).
 */
export function generateWorld(
  seed: number,
  size: WorldSize = DEFAULT_WORLD_SIZE,
  reserved: Iterable<string> = [],
): World {
  const r = rng(seed);
  const used = new Set<string>(reserved);
  const countries: Country[] = Array.from({ length: size.countries }, (_, i) => ({
    name: unique(used, () => syllableWord(r, r.int(2, 3))),
    capital: i,
  }));
  const cities: City[] = Array.from({ length: size.cities }, (_, i) => ({
    name: unique(used, () => syllableWord(r, r.int(2, 3))),
    country: i < size.countries ? i : r.int(0, size.countries - 1),
    founded: r.int(800, 1700),
    river: r.pick(RIVERS),
  }));
  const people: Person[] = Array.from({ length: size.people }, () => ({
    name: unique(used, () => `${syllableWord(r, 2)} ${syllableWord(r, r.int(2, 3))}`),
    born: r.int(1780, 1990),
    city: r.int(0, size.cities - 1),
    occupation: r.pick(OCCUPATIONS),
    employer: r.int(0, size.orgs - 1),
  }));
  const orgs: Organisation[] = Array.from({ length: size.orgs }, () => {
    const kind = r.pick(ORG_KINDS);
    const founder = r.int(0, size.people - 1);
    return {
      name: unique(used, () => `${syllableWord(r, 2)} ${ORG_SUFFIX[kind]}`),
      kind,
      founded: (people[founder] as Person).born + r.int(25, 50),
      founder,
      city: r.int(0, size.cities - 1),
    };
  });
  const works: Work[] = Array.from({ length: size.works }, () => {
    const creator = r.int(0, size.people - 1);
    return {
      title: unique(used, () =>
        r.next() < 0.3
          ? `The ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`
          : `${r.pick(NOUNS)} of ${syllableWord(r, r.int(2, 3))}`,
      ),
      kind: r.pick(WORK_KINDS),
      year: (people[creator] as Person).born + r.int(18, 60),
      creator,
    };
  });
  return { countries, cities, people, orgs, works };
}

const at = <T>(items: readonly T[], i: number): T => items[i] as T;

/** Every name and title in a world. */
export function worldNames(w: World): string[] {
  return [...w.countries, ...w.cities, ...w.people, ...w.orgs]
    .map((e) => e.name)
    .concat(w.works.map((k) => k.title));
}

/** One Wikipedia-like passage per entity, in a fixed order (countries, cities, people, orgs, works). */
export function worldPassages(w: World): Passage[] {
  const country = (city: number) => at(w.countries, at(w.cities, city).country).name;
  return [
    ...w.countries.map((c) => ({
      title: c.name,
      text: `${c.name} is a country. Its capital is ${at(w.cities, c.capital).name}.`,
    })),
    ...w.cities.map((c) => ({
      title: c.name,
      text: `${c.name} is a city in ${at(w.countries, c.country).name}, founded in ${c.founded}. It lies on the ${c.river} river.`,
    })),
    ...w.people.map((p) => ({
      title: p.name,
      text: `${p.name} (born ${p.born} in ${at(w.cities, p.city).name}) is a ${p.occupation} from ${country(p.city)}. ${p.name} works for the ${at(w.orgs, p.employer).name}.`,
    })),
    ...w.orgs.map((o) => ({
      title: o.name,
      text: `The ${o.name} is a ${o.kind} founded in ${o.founded} by ${at(w.people, o.founder).name}. It is headquartered in ${at(w.cities, o.city).name}.`,
    })),
    ...w.works.map((k) => ({
      title: k.title,
      text: `${k.title} is a ${k.year} ${k.kind} by ${at(w.people, k.creator).name}.`,
    })),
  ];
}
