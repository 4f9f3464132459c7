import { hashString, type Rng, rng } from "../../shared/random.js";

/** A calculator task: the question, its answer, and the calls an expert makes (the solution path). */
export type CalcTask = { question: string; answer: number; calls: string[] };

type Template = (r: Rng) => { question: string; calls: string[]; answer: number };

const NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fay", "Gus", "Hana"] as const;
const ITEMS = ["apples", "pens", "cards", "stamps", "shells", "books"] as const;
const GOODS = ["coat", "lamp", "bike", "desk", "rug", "tent"] as const;

/** Short multi-step word problems (2–4 operations); short so that a small CPU-trained policy can read them. */
const TEMPLATES: Template[] = [
  (r) => {
    const [n, it, a, b, c] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 40), r.int(2, 9), r.int(2, 12)];
    return {
      question: `${n} has ${a} ${it} and buys ${b} packs of ${c}. How many ${it} now?`,
      calls: [`${a}+${b}*${c}`],
      answer: a + b * c,
    };
  },
  (r) => {
    const [a, b, c, d] = [r.int(2, 20), r.int(2, 15), r.int(2, 20), r.int(2, 9)];
    return {
      question: `${a} pens cost $${b} each and ${c} pads cost $${d} each. Total cost?`,
      calls: [`${a}*${b}+${c}*${d}`],
      answer: a * b + c * d,
    };
  },
  (r) => {
    const [n, it, c, q, g] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 9), r.int(2, 12), r.int(1, 30)];
    const a = c * q + g;
    return {
      question: `${n} had ${a} ${it}, gave away ${g}, then split the rest among ${c} friends. Each got?`,
      calls: [`(${a}-${g})/${c}`],
      answer: q,
    };
  },
  (r) => {
    const [a, b, c] = [r.int(20, 90), r.int(2, 8), r.int(5, 99)];
    return {
      question: `A car goes ${a} km/h for ${b} hours, then ${c} km more. Distance?`,
      calls: [`${a}*${b}+${c}`],
      answer: a * b + c,
    };
  },
  (r) => {
    const [b, c, d] = [r.int(2, 9), r.int(2, 6), r.int(5, 50)];
    const a = b * c + r.int(10, 200);
    return {
      question: `A tank holds ${a} L, leaks ${b} L an hour for ${c} hours, then gets ${d} L. Litres now?`,
      calls: [`${a}-${b}*${c}+${d}`],
      answer: a - b * c + d,
    };
  },
  (r) => {
    const [it, p, pct, k] = [r.pick(GOODS), r.int(2, 99) * 10, r.pick([10, 20, 25, 50]), r.int(2, 6)];
    return {
      question: `A $${p} ${it} is ${pct}% off. What do ${k} ${it}s cost?`,
      calls: [`${p}*(100-${pct})/100*${k}`],
      answer: ((p * (100 - pct)) / 100) * k,
    };
  },
  (r) => {
    const [n, a, b, c, d] = [r.pick(NAMES), r.int(2, 6), r.int(2, 15), r.int(2, 6), r.int(2, 15)];
    const paid = (Math.floor((a * b + c * d) / 10) + r.int(1, 10)) * 10;
    return {
      question: `${n} buys ${a} pies at $${b} and ${c} cakes at $${d}, paying $${paid}. Change?`,
      calls: [`${paid}-(${a}*${b}+${c}*${d})`],
      answer: paid - (a * b + c * d),
    };
  },
];

const TEST_BUCKET = 5;

/**
 * Task `index` of `split`, deterministic. Splits are disjoint by construction: a candidate belongs to
 * the test split exactly when the hash of its question falls in one bucket of five.
 */
export function proceduralTask(split: string, index: number): CalcTask {
  const r = rng(hashString(`calculator/${split}`) ^ Math.imul(index + 1, 0x9e3779b1));
  for (;;) {
    const t = (r.pick(TEMPLATES) as Template)(r);
    const isTest = hashString(t.question) % TEST_BUCKET === 0;
    if (isTest === (split === "test")) return t;
  }
}

export const PROCEDURAL_SPLITS = { train: 100_000, test: 1_000 } as const;
