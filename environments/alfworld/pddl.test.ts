import { describe, expect, it } from "vitest";
import { atoms, flattenGoal, matchAtoms, parseSexps, section } from "./pddl.js";

describe("alfworld's PDDL reading", () => {
  it("parses lists and symbols, lowercased, without comments, and says where the parentheses fail", () => {
    expect(parseSexps("(define (problem P) ; a comment (\n (:init (Opened Fridge_bar_1)))")).toEqual({
      ok: true,
      value: [["define", ["problem", "p"], [":init", ["opened", "fridge_bar_1"]]]],
    });
    expect(parseSexps("(a (b)")).toEqual({
      ok: false,
      error: "unbalanced '(': the text ends inside an expression",
    });
    expect(parseSexps("(a))")).toEqual({ ok: false, error: "unbalanced ')'" });
    const parsed = parseSexps("(define (:objects a b - object) (:goal (x)))");
    expect(parsed.ok && section(parsed.value[0] as never, ":objects")).toEqual(["a", "b", "-", "object"]);
  });

  it("flattens and/exists goals, renaming each bound variable apart, and refuses other connectives", () => {
    const goal = (text: string) => {
      const p = parseSexps(text);
      if (!p.ok) throw new Error(p.error);
      return flattenGoal(p.value[0] ?? "");
    };
    expect(goal("(and (exists (?a - agent) (holds ?a ?o)) (exists (?a - agent) (not (= ?a ?b))))")).toEqual({
      ok: true,
      value: [
        { pred: "holds", args: ["?a#0", "?o"] },
        { pred: "distinct", args: ["?a#1", "?b"] },
      ],
    });
    expect(goal("(or (isclean ?o) (ishot ?o))")).toEqual({ ok: false, error: "the goal uses 'or'" });
    expect(goal("(not (isclean ?o))")).toEqual({ ok: false, error: "the goal uses 'not'" });
  });

  it("matches a pattern one atom to one, distinct variables to distinct variables, constants consistently", () => {
    const pattern = atoms("(inreceptacle ?o ?r) (objecttype ?o $o)");
    expect(matchAtoms(pattern, atoms("(objecttype ?x mugtype) (inreceptacle ?x ?y)"))).toEqual(
      new Map([
        ["?o", "?x"],
        ["?r", "?y"],
        ["$o", "mugtype"],
      ]),
    );
    // One variable can't stand for both ?o and ?r; a constant can't stand where a variable must.
    expect(matchAtoms(pattern, atoms("(inreceptacle ?x ?x) (objecttype ?x mugtype)"))).toBeUndefined();
    expect(matchAtoms(pattern, atoms("(inreceptacle ?x cup_1) (objecttype ?x mugtype)"))).toBeUndefined();
    expect(matchAtoms(pattern, atoms("(inreceptacle ?x ?y)"))).toBeUndefined();
  });
});
