import type { RunIO } from "../run/io.js";

/**
 * The CLI's run I/O: log lines on stderr, checkpoints in the policy package's format. The policy
 * package (tfjs) loads on first use so that `edgegym --help` and the hub commands start fast.
 */
export const cliIO: RunIO = {
  log: (line) => process.stderr.write(`edgegym: ${line}\n`),
  saveCheckpoint: async (dir, checkpoint) =>
    (await import("../checkpoint/checkpoint.js")).saveCheckpoint(dir, checkpoint),
  loadCheckpoint: async (dir, opts) =>
    (await import("../checkpoint/checkpoint.js")).loadCheckpoint(dir, opts),
};

/** Collects a repeatable option into a list. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Named CLI options as `key=value` overrides (only those given). */
export function overridesFrom(opts: Record<string, unknown>, keys: readonly string[]): string[] {
  return keys.flatMap((k) => (opts[k] === undefined ? [] : [`${k}=${String(opts[k])}`]));
}

/**
 * A mistake in what the user asked for (a missing config file, a bad flag value, an unknown key): the
 * CLI prints its message as one line and exits 2, never with a stack trace (see main.ts).
 */
export class UserError extends Error {
  override name = "UserError";
}

/** Prints a failure of the run itself (not the user's input) without a stack trace; exit code 1. */
export function fail(message: string): void {
  process.stderr.write(`edgegym: ${message}\n`);
  process.exitCode = 1;
}
