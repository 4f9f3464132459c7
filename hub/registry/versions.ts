import semver from "semver";

type Versioned = { version: string; prerelease: boolean; yankedAt: Date | null };

/** `@latest`: the highest semver that is neither yanked nor a prerelease, or null. */
export function latestOf<V extends Versioned>(versions: readonly V[]): V | null {
  let best: V | null = null;
  for (const v of versions) {
    if (v.yankedAt || v.prerelease) continue;
    if (!best || semver.gt(v.version, best.version)) best = v;
  }
  return best;
}

export function isPrerelease(version: string): boolean {
  return semver.prerelease(version) !== null;
}
