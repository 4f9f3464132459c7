import type { Result } from "../../shared/result.js";

/** A PDDL s-expression: a symbol (lowercased, as PDDL names are case-insensitive) or a list. */
export type Sexp = string | Sexp[];

/**
 * Parses PDDL text into its top-level expressions. Written here rather than taken from npm: PDDL needs
 * only parentheses, symbols and `;` comments, and the s-expression packages add quoting syntax PDDL lacks.
 */
export function parseSexps(text: string): Result<Sexp[]> {
  const tokens = text.replace(/;[^\n]*/g, " ").match(/[()]|[^\s()]+/g) ?? [];
  const stack: Sexp[][] = [[]];
  for (const t of tokens) {
    if (t === "(") stack.push([]);
    else if (t === ")") {
      const done = stack.pop();
      const parent = stack.at(-1);
      if (done === undefined || parent === undefined) return { ok: false, error: "unbalanced ')'" };
      parent.push(done);
    } else stack.at(-1)?.push(t.toLowerCase());
  }
  if (stack.length !== 1) return { ok: false, error: "unbalanced '(': the text ends inside an expression" };
  return { ok: true, value: stack[0] as Sexp[] };
}

/** The list after `head` in `list` (`(:init …)` in a problem), if there is one. */
export function section(list: readonly Sexp[], head: string): Sexp[] | undefined {
  const found = list.find((x): x is Sexp[] => Array.isArray(x) && x[0] === head);
  return found?.slice(1);
}

/** An atom: a predicate and its arguments, all symbols. */
export type Atom = { pred: string; args: string[] };

const isAtom = (x: Sexp): x is string[] => Array.isArray(x) && x.every((a) => typeof a === "string");

/**
 * A goal made only of `and`, `exists` and atoms, with `(not (= ?x ?y))` kept as the atom `distinct`,
 * flattened to its atoms; each `exists` variable renamed apart (`?a` bound twice is two variables).
 * Anything else (`or`, `forall`, other negations) is no goal of ALFWorld's six families.
 */
export function flattenGoal(goal: Sexp): Result<Atom[]> {
  const out: Atom[] = [];
  let fresh = 0;
  const walk = (x: Sexp, names: ReadonlyMap<string, string>): string | undefined => {
    if (!Array.isArray(x) || x.length === 0) return `unexpected ${JSON.stringify(x)}`;
    const [head, ...rest] = x;
    if (head === "and") {
      for (const part of rest) {
        const why = walk(part, names);
        if (why) return why;
      }
      return undefined;
    }
    if (head === "exists") {
      const [vars, body] = rest;
      if (!Array.isArray(vars) || body === undefined) return "an exists without variables or body";
      const inner = new Map(names);
      for (const v of vars) if (typeof v === "string" && v.startsWith("?")) inner.set(v, `${v}#${fresh++}`);
      return walk(body, inner);
    }
    const rename = (a: string) => names.get(a) ?? a;
    const [n] = rest;
    if (head === "not" && rest.length === 1 && Array.isArray(n) && n[0] === "=" && isAtom(n)) {
      out.push({ pred: "distinct", args: n.slice(1).map(rename) });
      return undefined;
    }
    if (typeof head !== "string" || !isAtom(x) || head.startsWith(":")) {
      return `the goal uses ${typeof head === "string" ? `'${head}'` : "a nested list"}`;
    }
    out.push({ pred: head, args: rest.map((a) => rename(a as string)) });
    return undefined;
  };
  const why = walk(goal, new Map());
  return why === undefined ? { ok: true, value: out } : { ok: false, error: why };
}

/**
 * Binds a pattern's atoms one to one onto a goal's: pattern `?x` to distinct goal variables, `$X` to
 * goal constants (the same `$X` to the same constant). The bindings when every atom pairs off, else undefined.
 */
export function matchAtoms(pattern: readonly Atom[], goal: readonly Atom[]): Map<string, string> | undefined {
  if (pattern.length !== goal.length) return undefined;
  const used = new Set<number>();
  const bind = (i: number, b: Map<string, string>): Map<string, string> | undefined => {
    const p = pattern[i];
    if (p === undefined) return b;
    for (const [j, g] of goal.entries()) {
      if (used.has(j) || g.pred !== p.pred || g.args.length !== p.args.length) continue;
      const next = new Map(b);
      const fits = p.args.every((a, k) => {
        const v = g.args[k] as string;
        if (a.startsWith("?") !== v.startsWith("?")) return false;
        const bound = next.get(a);
        if (bound !== undefined) return bound === v;
        if (a.startsWith("?") && [...next.values()].includes(v)) return false;
        next.set(a, v);
        return true;
      });
      if (!fits) continue;
      used.add(j);
      const done = bind(i + 1, next);
      if (done) return done;
      used.delete(j);
    }
    return undefined;
  };
  return bind(0, new Map());
}

/** `(inReceptacle ?o ?r) (objectType ?o $O)` as atoms, for writing patterns. */
export function atoms(text: string): Atom[] {
  const parsed = parseSexps(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value.filter(isAtom).map(([pred = "", ...args]) => ({ pred, args }));
}
