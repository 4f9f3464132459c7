/**
 * Flags of the repository's Node scripts (`npm start`, `npm run results`, the benchmarks, the local hosts).
 * `parseArgs` throws on an unknown flag or a missing value, which reaches the user as a stack trace;
 * the rule for every command is one line on stderr and exit code 2 for a mistake, and usage on
 * `--help`/`-h` (exit 0) before any work starts. It lives in `shared/` because the env host and the
 * hub's dev script use it too and must not import from `trainer/`; it is Node-only.
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";

type Values<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O }>>["values"];

/** The single-valued string flags of `O`: the ones a number can be read from. */
type StringFlag<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]: O[K]["type"] extends "string" ? (O[K]["multiple"] extends true ? never : K) : never;
}[keyof O] &
  string;

export type ScriptArgs<O extends ParseArgsOptionsConfig> = {
  values: Values<O>;
  /** A mistake in the flags that the script finds itself: the same one line and exit code 2. */
  fail: (line: string) => never;
  /** `--flag`'s value as a finite number ≥ 0 (counts, seconds, ports), else a mistake naming the flag. */
  number: (flag: StringFlag<O>) => number;
};

/**
 * Parses `process.argv` against `options` (plus `-h, --help`) as `name`'s flags; a mistake's line
 * ends with how to ask for the usage, `help` (what the user types: `npm start -- --help`).
 */
export function scriptArgs<const O extends ParseArgsOptionsConfig>(
  name: string,
  usage: string,
  options: O,
  help = "--help",
): ScriptArgs<O> {
  const fail = (line: string): never => {
    process.stderr.write(`${name}: ${line} (${help} lists the options)\n`);
    process.exit(2);
  };
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ options: { ...options, help: { type: "boolean", short: "h" } } });
  } catch (e) {
    // Only the user's input is their mistake; a malformed `options` is a bug and keeps its trace.
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw e;
    // Some of Node's messages span lines (`--port -3`: "ambiguous", then a hint per line).
    return fail((e as Error).message.replace(/\s*\n\s*/g, " "));
  }
  if (parsed.values.help) {
    console.log(usage);
    process.exit(0);
  }
  const values = parsed.values as Values<O>;
  const number = (flag: StringFlag<O>): number => {
    const raw = parsed.values[flag];
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
    return Number.isFinite(n) && n >= 0
      ? n
      : fail(`--${flag} wants a number ≥ 0, not ${JSON.stringify(raw)}`);
  };
  return { values, fail, number };
}
