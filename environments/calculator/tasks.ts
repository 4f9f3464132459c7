import { hashString, type Rng, rng } from "../../shared/random.js";

/** A calculator task: the question, its answer, and the calls an expert makes (the solution path). */
export type CalcTask = { question: string; answer: number; calls: string[] };

type Template = (r: Rng) => { question: string; calls: string[]; answer: number };

const NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fay", "Gus", "Hana"] as const;
const ITEMS = ["apples", "pens", "cards", "stamps", "shells", "books"] as const;
const GOODS = ["coat", "lamp", "bike", "desk", "rug", "tent"] as const;

/** One operation: a sum or difference of numbers up to 20, a product or quotient from the times table. */
const ONE_OPERATION: Template[] = [
  (r) => {
    const [n, it, a, b] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 20), r.int(2, 20)];
    return {
      question: `${n} has ${a} ${it} and gets ${b} more. How many ${it} now?`,
      calls: [`${a}+${b}`],
      answer: a + b,
    };
  },
  (r) => {
    const [n, it, b, c] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 20), r.int(2, 20)];
    return {
      question: `${n} has ${b + c} ${it} and gives away ${b}. How many ${it} now?`,
      calls: [`${b + c}-${b}`],
      answer: c,
    };
  },
  (r) => {
    const [n, it, a, b] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 9), r.int(2, 9)];
    return {
      question: `${n} buys ${a} packs of ${b} ${it}. How many ${it}?`,
      calls: [`${a}*${b}`],
      answer: a * b,
    };
  },
  (r) => {
    const [n, it, a, b] = [r.pick(NAMES), r.pick(ITEMS), r.int(2, 9), r.int(2, 9)];
    return {
      question: `${n} splits ${a * b} ${it} among ${b} friends. Each got?`,
      calls: [`${a * b}/${b}`],
      answer: a,
    };
  },
];

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

/** Operations in each of `TEMPLATES`' expressions, in order (the test checks these counts). */
const TEMPLATE_OPERATIONS = [2, 3, 2, 2, 3, 4, 4] as const;

/**
 * Difficulty levels, easiest first: 1: one operation on small numbers; 2: today's two-operation
 * templates; 3: up to three operations; 4: every template (the `calculator` env's tasks since
 * calculator-procedural/2). The top level draws exactly as before levels existed.
 */
export const CALCULATOR_LEVELS = 4;

function templatesOf(level: number): readonly Template[] {
  if (level <= 1) return ONE_OPERATION;
  if (level >= CALCULATOR_LEVELS) return TEMPLATES;
  const most = level === 2 ? 2 : 3;
  return TEMPLATES.filter((_, i) => (TEMPLATE_OPERATIONS[i] ?? 0) <= most);
}

const TEST_BUCKET = 5;

/**
 * Task `index` of `split` at `level`, deterministic. Splits are disjoint by construction: a candidate
 * belongs to the test split exactly when the hash of its question falls in one bucket of five. The top
 * level keeps its seed; lower levels seed with their level, so their draws are their own.
 */
export function proceduralTask(split: string, index: number, level: number = CALCULATOR_LEVELS): CalcTask {
  const seed = level >= CALCULATOR_LEVELS ? `calculator/${split}` : `calculator/l${level}/${split}`;
  const r = rng(hashString(seed) ^ Math.imul(index + 1, 0x9e3779b1));
  const templates = templatesOf(level);
  for (;;) {
    const t = (r.pick(templates) as Template)(r);
    const isTest = hashString(t.question) % TEST_BUCKET === 0;
    if (isTest === (split === "test")) return t;
  }
}

export const PROCEDURAL_SPLITS = { train: 100_000, test: 1_000 } as const;
