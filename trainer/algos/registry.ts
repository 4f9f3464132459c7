import {
  type AdvantageEstimatorName,
  type Critic,
  ESTIMATOR_CRITICS,
  type LossAggregation,
  type PolicyLossName,
} from "./names.js";

/** Config fields a method may set when the user leaves them unset (names as in the train config). */
export type MethodDefaults = {
  clipLow?: number;
  clipHigh?: number;
  dualClip?: number;
  gamma?: number;
  lambda?: number;
};

/**
 * An RL method: the advantage estimator it runs, the policy loss and aggregation it trains with, and
 * the other config values it is meant to run at. The critic is the estimator's (names.ts), so a method
 * cannot claim a value head its estimator does not read.
 */
export type Method = {
  /** Display name (results table, run titles). */
  label: string;
  /** One line for `edgegym train --help`. */
  summary: string;
  estimator: AdvantageEstimatorName;
  policyLoss: PolicyLossName;
  aggregation: LossAggregation;
  defaults: MethodDefaults;
};

/**
 * Every method by the name the config's `algorithm` field takes. Adding a method is adding an entry
 * here (and a case in registry.test.ts): the config's enum, its defaults, the CLI help and the update
 * step all read this table. The non-StepPO entries carry no defaults beyond the config's own, so that
 * configs written before the registry resolve as they did.
 */
export const METHODS = {
  grpo: {
    label: "GRPO",
    summary: "group-normalised outcome advantage, PPO clip",
    estimator: "grpo",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  "dr-grpo": {
    label: "Dr.GRPO",
    summary: "GRPO's advantage without the division by the group's std",
    estimator: "dr-grpo",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  ppo: {
    label: "PPO",
    summary: "token-level GAE with the value head, PPO clip",
    estimator: "gae",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  rloo: {
    label: "RLOO",
    summary: "leave-one-out group baseline",
    estimator: "rloo",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  "reinforce++": {
    label: "REINFORCE++",
    summary: "discounted return-to-go, whitened over the batch",
    estimator: "reinforce++",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  "reinforce++-baseline": {
    label: "REINFORCE++ (baseline)",
    summary: "outcome minus the group mean, whitened over the batch",
    estimator: "reinforce++-baseline",
    policyLoss: "ppo",
    aggregation: "token-mean",
    defaults: {},
  },
  steppo: {
    label: "StepPO",
    summary: "step-level GAE with the value head, GSPO sequence ratio",
    estimator: "steppo",
    policyLoss: "gspo",
    aggregation: "token-mean",
    // GSPO clips a per-sequence geometric-mean ratio, in a range far narrower than PPO's token ratio
    // (the GSPO paper: 3e-4/4e-4); the recipes and the learning probe run StepPO at these. Undiscounted.
    defaults: { clipLow: 3e-3, clipHigh: 4e-3, gamma: 1, lambda: 1 },
  },
} as const satisfies Record<string, Method>;

export type MethodName = keyof typeof METHODS;
export const DEFAULT_METHOD: MethodName = "grpo";

/**
 * Older spellings still read: run folders' config.json and state.json written when `algorithm`
 * named the advantage estimator say "gae" for PPO.
 */
export const METHOD_ALIASES: Readonly<Record<string, MethodName>> = { gae: "ppo" };

/** The method names as a non-empty tuple, for `z.enum`. */
export function methodNames<K extends string>(methods: Readonly<Record<K, Method>>): [K, ...K[]] {
  return Object.keys(methods) as [K, ...K[]];
}

/** A method with its critic, as the update step reads it. */
export type ResolvedMethod = Method & { name: string; critic: Critic };

/** The method `name` (an alias counts), or undefined. */
export function resolveMethod(
  name: string,
  methods: Readonly<Record<string, Method>> = METHODS,
): ResolvedMethod | undefined {
  const canonical = METHOD_ALIASES[name] ?? name;
  if (!Object.hasOwn(methods, canonical)) return undefined;
  const method = methods[canonical] as Method;
  return { ...method, name: canonical, critic: ESTIMATOR_CRITICS[method.estimator] };
}

/**
 * Whether a recorded method name (a checkpoint's `meta.algorithm`, perhaps an older spelling) is the
 * method `name`.
 */
export function sameMethod(recorded: unknown, name: string): boolean {
  return typeof recorded === "string" && resolveMethod(recorded)?.name === name;
}

/** The config values a method supplies: its loss, its aggregation and its defaults. */
export function methodConfig(method: Method): Record<string, unknown> {
  return { policyLoss: method.policyLoss, aggregation: method.aggregation, ...method.defaults };
}

/**
 * A raw config object (file, overrides, a recipe's `rl`) with its method applied before validation:
 * an alias becomes the method's name, and every field the method supplies that the object leaves
 * unset takes the method's value. Anything else (not an object, an unknown method) passes through
 * for the schema to refuse with its own message.
 */
export function withMethodDefaults(
  raw: unknown,
  methods: Readonly<Record<string, Method>> = METHODS,
): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const given = raw as Record<string, unknown>;
  const named = given.algorithm ?? DEFAULT_METHOD;
  const method = typeof named === "string" ? resolveMethod(named, methods) : undefined;
  if (method === undefined) return raw;
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return {
    ...methodConfig(method),
    ...set,
    ...(given.algorithm === undefined ? {} : { algorithm: method.name }),
  };
}
