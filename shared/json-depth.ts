/**
 * How deeply an action's JSON may nest. Tool arguments are flat in practice; a bound this low keeps
 * every later recursive walk (JSON.stringify, schema validation, an author's own code) far from the
 * stack limit, which V8 reaches near 5,000 levels.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `value` nests objects or arrays more than `max` levels deep (`{}` and `[]` are one level,
 * a primitive none). Walks with an explicit stack, so an arbitrarily deep value cannot overflow it,
 * and stops at the first path past the bound.
 */
export function deeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
