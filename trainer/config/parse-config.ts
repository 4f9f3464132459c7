import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import { err, ok, type Result } from "../../shared/result.js";

/**
 * The one place config objects (train, sft, eval, recipes) are parsed: zod's issues as one line, and
 * an unknown key (the schemas are `.strict()`) named with the nearest valid key, so that a typo such as
 * `--set learningRate=1e-3` is refused with "did you mean lr?" instead of silently dropped.
 */
export function parseConfig<T>(schema: z.ZodType<T>, value: unknown, label?: string): Result<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return ok(parsed.data);
  const lines = parsed.error.issues.map((issue) => {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const valid = keysAt(schema, issue.path);
      return issue.keys
        .map((k) => {
          const near = nearestKey(k, valid);
          const name = at === "" ? k : `${at}.${k}`;
          return `unknown key ${name}${near === undefined ? "" : `; did you mean ${near}?`}`;
        })
        .join("; ");
    }
    return `${at === "" ? "(root)" : at}: ${issue.message}`;
  });
  return err(`${label === undefined ? "" : `${label}: `}${lines.join("; ")}`);
}

/**
 * The valid key nearest to `key`: one whose letters are the initials of `key`'s camelCase words
 * (`learningRate` → `lr`), else the smallest edit distance, when it is under half of the key's length.
 */
export function nearestKey(key: string, valid: readonly string[]): string | undefined {
  if (valid.length === 0) return undefined;
  const lower = key.toLowerCase();
  const byInitials = valid.find((v) => initials(key) === v.toLowerCase() || initials(v) === lower);
  if (byInitials !== undefined) return byInitials;
  const lowered = valid.map((v) => v.toLowerCase());
  const best = closest(lower, lowered);
  if (distance(lower, best) > Math.max(2, Math.floor(key.length / 2))) return undefined;
  return valid[lowered.indexOf(best)];
}

/** `learningRate` → `lr`; single words have no initials worth matching. */
function initials(key: string): string {
  const words = key.split(/(?=[A-Z])|[-_]/).filter((w) => w.length > 0);
  return words.length < 2 ? "" : words.map((w) => (w[0] as string).toLowerCase()).join("");
}

type Def = {
  type?: string;
  innerType?: unknown;
  out?: unknown;
  shape?: Record<string, unknown>;
  element?: unknown;
  in?: unknown;
};
const defOf = (s: unknown): Def | undefined =>
  (s as { def?: Def; _zod?: { def?: Def } } | undefined)?._zod?.def ?? (s as { def?: Def } | undefined)?.def;

/** The keys of the object schema at `path` (through defaults, optionals, pipes and arrays). */
function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let def = defOf(schema);
  const rest = [...path];
  for (;;) {
    while (def && (def.innerType || def.in) && def.type !== "object" && def.type !== "array")
      // A preprocess (a pipe from a transform) validates with its `out` schema.
      def = defOf(def.innerType ?? (defOf(def.in)?.type === "transform" ? def.out : def.in));
    if (def === undefined) return [];
    if (rest.length === 0) return def.type === "object" ? Object.keys(def.shape ?? {}) : [];
    const step = rest.shift();
    if (def.type === "object") def = defOf(def.shape?.[String(step)]);
    else if (def.type === "array") def = defOf(def.element);
    else return [];
  }
}

/**
 * Defaults, then a JSON config file's values, then `key=value` overrides (dotted keys reach nested
 * fields, e.g. `model.dModel=128`; values parse as JSON when they can, else as strings).
 */
export function resolveConfig<T>(
  schema: z.ZodType<T>,
  base: Record<string, unknown>,
  overrides: readonly string[],
): Result<T> {
  const merged: Record<string, unknown> = structuredClone(base);
  for (const item of overrides) {
    const eq = item.indexOf("=");
    if (eq <= 0) return err(`override "${item}" is not key=value`);
    const path = item.slice(0, eq).split(".");
    let target = merged;
    for (const key of path.slice(0, -1)) {
      target[key] ??= {};
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1) as string] = parseValue(item.slice(eq + 1));
  }
  return parseConfig(schema, merged);
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
