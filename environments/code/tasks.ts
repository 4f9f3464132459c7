import { hashString, type Rng, rng } from "../../shared/random.js";

/** A code task: the question, its numeric answer and a reference program that prints the answer. */
export type CodeTask = { question: string; answer: number; program: string };

type Template = (r: Rng) => CodeTask;

const sumWhere = (from: number, to: number, keep: (i: number) => boolean): number => {
  let s = 0;
  for (let i = from; i <= to; i++) if (keep(i)) s += i;
  return s;
};

const digitSum = (n: number): number => [...String(n)].reduce((s, d) => s + Number(d), 0);

const randomString = (r: Rng, alphabet: string, length: number): string =>
  Array.from({ length }, () => alphabet[r.int(0, alphabet.length - 1)]).join("");

/**
 * Problems that take a few lines of code and are tedious by hand: conditional sums over ranges,
 * counting in strings, modular arithmetic and sequences. Each answer is computed here in TypeScript;
 * the program is separate JavaScript text that the tests run in the sandbox to check both agree.
 */
const TEMPLATES: Template[] = [
  (r) => {
    const [a, k, m] = [r.int(1, 500), r.int(2, 13), r.int(2, 20)];
    const b = a + r.int(500, 5000);
    return {
      question: `What is the sum of the integers from ${a} to ${b} that are divisible by ${k} but not by ${m}?`,
      answer: sumWhere(a, b, (i) => i % k === 0 && i % m !== 0),
      program: `let s = 0;\nfor (let i = ${a}; i <= ${b}; i++) if (i % ${k} === 0 && i % ${m} !== 0) s += i;\nconsole.log(s);`,
    };
  },
  (r) => {
    const [n, target] = [r.int(1000, 9999), r.int(5, 30)];
    let count = 0;
    for (let i = 1; i <= n; i++) if (digitSum(i) === target) count++;
    return {
      question: `How many integers from 1 to ${n} have a digit sum of ${target}?`,
      answer: count,
      program: `let c = 0;\nfor (let i = 1; i <= ${n}; i++) {\n  let s = 0;\n  for (let m = i; m > 0; m = Math.floor(m / 10)) s += m % 10;\n  if (s === ${target}) c++;\n}\nconsole.log(c);`,
    };
  },
  (r) => {
    const text = randomString(r, "abcde", r.int(60, 120));
    const letter = "abcde"[r.int(0, 4)] as string;
    return {
      question: `How many times does the letter "${letter}" appear in "${text}"?`,
      answer: [...text].filter((c) => c === letter).length,
      program: `console.log([..."${text}"].filter((c) => c === "${letter}").length);`,
    };
  },
  (r) => {
    const text = randomString(r, "ab", r.int(60, 120));
    const pattern = randomString(r, "ab", 3);
    let count = 0;
    for (let i = 0; i + pattern.length <= text.length; i++) if (text.startsWith(pattern, i)) count++;
    return {
      question: `How many times does "${pattern}" occur in "${text}", overlaps included?`,
      answer: count,
      program: `const t = "${text}";\nlet c = 0;\nfor (let i = 0; i + 3 <= t.length; i++) if (t.startsWith("${pattern}", i)) c++;\nconsole.log(c);`,
    };
  },
  (r) => {
    const [a, e, m] = [r.int(2, 999), r.int(1000, 1_000_000_000), r.int(1000, 99_999)];
    let [base, exp, result] = [BigInt(a) % BigInt(m), BigInt(e), 1n];
    for (; exp > 0n; exp >>= 1n, base = (base * base) % BigInt(m))
      if (exp & 1n) result = (result * base) % BigInt(m);
    return {
      question: `What is ${a}^${e} mod ${m}?`,
      answer: Number(result),
      program: `let b = ${a}n % ${m}n, e = ${e}n, r = 1n;\nfor (; e > 0n; e >>= 1n, b = (b * b) % ${m}n) if (e & 1n) r = (r * b) % ${m}n;\nconsole.log(Number(r));`,
    };
  },
  (r) => {
    const [n, m] = [r.int(100, 5000), r.int(10, 10_000)];
    let [f0, f1] = [0, 1];
    for (let i = 0; i < n; i++) [f0, f1] = [f1, (f0 + f1) % m];
    return {
      question: `With F(0)=0, F(1)=1 and F(n)=F(n-1)+F(n-2), what is F(${n}) mod ${m}?`,
      answer: f0,
      program: `let a = 0, b = 1;\nfor (let i = 0; i < ${n}; i++) {\n  const t = (a + b) % ${m};\n  a = b;\n  b = t;\n}\nconsole.log(a);`,
    };
  },
  (r) => {
    const [x0, p, q, m, n] = [r.int(1, 99), r.int(2, 97), r.int(1, 99), r.int(100, 9973), r.int(100, 5000)];
    let x = x0;
    for (let i = 0; i < n; i++) x = (x * p + q) % m;
    return {
      question: `x(0)=${x0} and x(k+1)=(${p}*x(k)+${q}) mod ${m}. What is x(${n})?`,
      answer: x,
      program: `let x = ${x0};\nfor (let i = 0; i < ${n}; i++) x = (x * ${p} + ${q}) % ${m};\nconsole.log(x);`,
    };
  },
  (r) => {
    const start = r.int(1000, 1_000_000);
    let [n, steps] = [start, 0];
    for (; n !== 1; steps++) n = n % 2 === 0 ? n / 2 : 3 * n + 1;
    return {
      question: `Starting from ${start}, halve even numbers and map odd n to 3n+1. How many steps until 1?`,
      answer: steps,
      program: `let n = ${start}, s = 0;\nfor (; n !== 1; s++) n = n % 2 === 0 ? n / 2 : 3 * n + 1;\nconsole.log(s);`,
    };
  },
];

/** Level 1: one expression, printed; numbers too large to multiply by heart. */
const ONE_EXPRESSION: Template[] = [
  (r) => {
    const [a, b, c] = [r.int(100, 999), r.int(10, 99), r.int(100, 9999)];
    return {
      question: `What is ${a}*${b}+${c}?`,
      answer: a * b + c,
      program: `console.log(${a}*${b}+${c});`,
    };
  },
  (r) => {
    const [a, b, m] = [r.int(100, 999), r.int(100, 999), r.int(7, 97)];
    return {
      question: `What is ${a}*${b} mod ${m}?`,
      answer: (a * b) % m,
      program: `console.log(${a}*${b}%${m});`,
    };
  },
  (r) => {
    const [a, b, c] = [r.int(1000, 9999), r.int(100, 999), r.int(10, 99)];
    return {
      question: `What is ${a}-${b}*${c}?`,
      answer: a - b * c,
      program: `console.log(${a}-${b}*${c});`,
    };
  },
];

/** Level 2: one short loop (a range or a string of 20–40 letters). */
const ONE_LOOP: Template[] = [
  (r) => {
    const [a, k] = [r.int(1, 100), r.int(2, 13)];
    const b = a + r.int(50, 500);
    return {
      question: `What is the sum of the integers from ${a} to ${b} that are divisible by ${k}?`,
      answer: sumWhere(a, b, (i) => i % k === 0),
      program: `let s = 0;\nfor (let i = ${a}; i <= ${b}; i++) if (i % ${k} === 0) s += i;\nconsole.log(s);`,
    };
  },
  (r) => {
    const n = r.int(10, 999);
    let s = 0;
    for (let i = 1; i <= n; i++) s += i * i;
    return {
      question: `What is the sum of the squares of the integers from 1 to ${n}?`,
      answer: s,
      program: `let s = 0;\nfor (let i = 1; i <= ${n}; i++) s += i * i;\nconsole.log(s);`,
    };
  },
  (r) => {
    const text = randomString(r, "abcde", r.int(20, 40));
    const letter = "abcde"[r.int(0, 4)] as string;
    return {
      question: `How many times does the letter "${letter}" appear in "${text}"?`,
      answer: [...text].filter((c) => c === letter).length,
      program: `console.log([..."${text}"].filter((c) => c === "${letter}").length);`,
    };
  },
];

/**
 * Difficulty levels, easiest first: 1: one printed expression; 2: one short loop; 3: every template
 * above (the `code` env's tasks since code-procedural/1). The top level draws exactly as before levels existed.
 */
export const CODE_LEVELS = 3;

const LEVEL_TEMPLATES: Record<number, readonly Template[]> = { 1: ONE_EXPRESSION, 2: ONE_LOOP };

const TEST_BUCKET = 5;

/**
 * Task `index` of `split` at `level`, deterministic. Splits are disjoint by construction: a candidate
 * belongs to the test split exactly when the hash of its question falls in one bucket of five. The top
 * level keeps its seed; lower levels seed with their level.
 */
export function codeTask(split: string, index: number, level: number = CODE_LEVELS): CodeTask {
  const seed = level >= CODE_LEVELS ? `code/${split}` : `code/l${level}/${split}`;
  const r = rng(hashString(seed) ^ Math.imul(index + 1, 0x9e3779b1));
  const templates = LEVEL_TEMPLATES[level] ?? TEMPLATES;
  for (;;) {
    const t = (r.pick(templates) as Template)(r);
    if ((hashString(t.question) % TEST_BUCKET === 0) === (split === "test")) return t;
  }
}

export const CODE_SPLITS = { train: 100_000, test: 1_000 } as const;
