import type { Rng } from "../../shared/random.js";

const ONSETS = ["b", "br", "d", "dr", "f", "g", "k", "kr", "l", "m", "n", "p", "r", "s", "t", "th", "v", "z"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "y"];
const CODAS = ["", "", "l", "n", "r", "s", "th", "v", "m", "sk"];

/**
 * A capitalised made-up word of `syllables` onset-vowel syllables and a final coda ("Pudraith",
 * "Kreathel"): the generated envs' names, which a byte-level policy can copy like any word.
 */
export function syllableWord(r: Rng, syllables: number): string {
  let w = "";
  for (let i = 0; i < syllables; i++)
    w += r.pick(ONSETS) + r.pick(VOWELS) + (i === syllables - 1 ? r.pick(CODAS) : "");
  return w.charAt(0).toUpperCase() + w.slice(1);
}
