import { PROBLEM_CONTENT_TYPE, problem } from "../../shared/errors.js";
import { RESERVED_PREFIX } from "./instrument.js";

/** The entry module the hub puts in front of the pushed main module in every hosted isolate. */
export const ENTRY_MODULE = `${RESERVED_PREFIX}/entry.js`;

/**
 * Guard calls one request (or the module's first evaluation) may make before the guard throws,
 * unless `HUB_HOSTED_TICKS` says otherwise. A tick is one function call or loop iteration: a kit
 * env's step makes some thousands; a bare `for(;;){}` reaches this in about 0.1 s under workerd.
 */
export const HOSTED_TICKS = 20_000_000;

/**
 * The guard module's source: the tick counter every instrumented module imports. Past `budget`
 * every tick throws (the count keeps rising), so a caught throw only ends in the next loop head or
 * call. The entry module resets the count as each request comes in.
 */
export function guardSource(budget: number): string {
  return `let ticks = 0;
const BUDGET = ${Math.floor(budget)};
export function ${RESERVED_PREFIX}_tick() {
  if (++ticks > BUDGET) throw new RangeError("edgegym: the hosted environment ran past its CPU budget");
}
export function ${RESERVED_PREFIX}_reset() { ticks = 0; }
export function ${RESERVED_PREFIX}_exceeded() { return ticks > BUDGET; }
`;
}

/**
 * The entry module's source: checks at start that the pushed main module's default export is a
 * fetch handler (else the isolate fails to start, which the hub reports as `env_failed_to_start`),
 * resets the guard per request, and answers `env_cpu_exceeded` for a request that ran past the
 * budget, whatever the env's code did with the guard's throw.
 */
export function entrySource(mainModule: string, budget: number): string {
  const cpu = JSON.stringify(
    problem(
      "env_cpu_exceeded",
      `the environment's code made more than ${budget} calls and loop iterations in one request`,
    ),
  );
  return `import { ${RESERVED_PREFIX}_reset as reset, ${RESERVED_PREFIX}_exceeded as exceeded } from "./guard.js";
import * as main from ${JSON.stringify(`../${mainModule}`)};
const app = main.default;
if (typeof app?.fetch !== "function") {
  throw new TypeError("the main module's default export is not a fetch handler (export default app, or { fetch })");
}
const cpu = () => new Response(${JSON.stringify(cpu)}, { status: 502, headers: { "content-type": ${JSON.stringify(PROBLEM_CONTENT_TYPE)} } });
export default {
  async fetch(request, env, ctx) {
    reset();
    let res;
    try {
      res = await app.fetch(request, env, ctx);
    } catch (e) {
      if (exceeded()) return cpu();
      throw e;
    }
    return exceeded() ? cpu() : res;
  },
};
`;
}
