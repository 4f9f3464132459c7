/**
 * Difficulty levels of the procedural environments. Level 1 is the easiest; the top level of an env is
 * its full task distribution, served under the env's own name (`calculator`), and a lower level `k`
 * under `<name>-l<k>` (`calculator-l1`). The top level is kept out of the env's config, so the
 * content hash of an env published before levels existed does not change; a lower level is in the
 * config and in the task source's id, so each level hashes differently.
 */

import type { TaskSource } from "./types.js";

/** `level`, or `top` when absent; a level outside 1…top is a programming error, thrown at definition. */
export function checkLevel(level: number | undefined, top: number): number {
  if (level === undefined) return top;
  if (!Number.isInteger(level) || level < 1 || level > top) {
    throw new RangeError(`levels are the integers 1 to ${top}, got ${level}`);
  }
  return level;
}

/** The env name a level is served under: the base name at the top level, `<base>-l<level>` below. */
export function levelName(base: string, level: number, top: number): string {
  return level >= top ? base : `${base}-l${level}`;
}

/** `config` with `level` set below the top and removed at it (see the module comment). */
export function withLevel<C extends { level?: number }>(config: C, level: number, top: number): C {
  const { level: _, ...rest } = config;
  return (level >= top ? rest : { ...rest, level }) as C;
}

/** What distinguishes one env's variants (its levels, its datasets): the name, the description and the tasks. */
export type Variant<Task> = { name: string; description: string; tasks: TaskSource<Task> };

/** `description` at the top level; below it, followed by `Level <level> of <top>: <text>.` */
export function levelDescription(
  description: string,
  level: number,
  top: number,
  text: string | undefined,
): string {
  return level >= top ? description : `${description} Level ${level} of ${top}: ${text ?? ""}.`;
}

/**
 * The procedural variant at `level` of `levels`: `top` itself at the top level; below it, the level's
 * name and description, and `get`'s tasks under the top's task id with `/l<level>` appended.
 */
export function variantAtLevel<Task>(
  top: Variant<Task> & { tasks: { id: string } },
  levels: number,
  level: number,
  text: string | undefined,
  get: (split: string, index: number) => Task,
): Variant<Task> {
  if (level >= levels) return top;
  return {
    name: levelName(top.name, level, levels),
    description: levelDescription(top.description, level, levels, text),
    tasks: { ...top.tasks, id: `${top.tasks.id}/l${level}`, get },
  };
}

/** `make(1)` … `make(top − 1)`: the lower levels an env serves beside its top one. */
export function lowerLevels<T>(top: number, make: (level: number) => T): T[] {
  return Array.from({ length: top - 1 }, (_, i) => make(i + 1));
}
