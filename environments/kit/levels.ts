/**
 * Difficulty levels of the procedural environments. Level 1 is the easiest; the top level of an env is
 * its full task distribution, served under the env's own name (`calculator`), and a lower level `k`
 * under `<name>-l<k>` (`calculator-l1`). The top level is kept out of the env's config, so the
 * content hash of an env published before levels existed does not change; a lower level is in the
 * config and in the task source's id, so each level hashes differently.
 */

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
