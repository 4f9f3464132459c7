import { contentHash } from "../../shared/content-hash.js";
import { EdgegymError } from "../../shared/errors.js";
import {
  type ExpertResponse,
  type Limits,
  type Manifest,
  PROTOCOL,
  type SessionRequest,
  type SessionResponse,
  type StepRequest,
  type StepResult,
} from "../../shared/protocol.js";
import { signReceipt } from "../../shared/receipt.js";
import { type KeyRing, resolveKeys, SESSION_KEY_VAR, SIGNING_KEY_VAR } from "./keys.js";
import { openSession, type SessionClaims, sealSession } from "./session.js";
import { actionChars, transition } from "./step.js";
import { toolSpecs } from "./tools.js";
import type { EnvironmentDefinition, EnvRuntime, EpisodeContext } from "./types.js";

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 8,
  maxActionChars: 8192,
  stepTimeoutMs: 10_000,
  sessionTtlSeconds: 3600,
};

/** An environment ready to serve: the protocol operations, independent of HTTP. */
export type Environment = {
  readonly name: string;
  readonly version: string;
  readonly limits: Limits;
  // biome-ignore lint/suspicious/noExplicitAny: an environment hides its task and state types from hosts.
  readonly definition: EnvironmentDefinition<any, any, any>;
  manifest(runtime: EnvRuntime): Promise<Manifest>;
  contentHash(runtime: EnvRuntime): Promise<string>;
  startSession(request: SessionRequest, runtime: EnvRuntime, now?: number): Promise<SessionResponse>;
  step(request: StepRequest, runtime: EnvRuntime, now?: number): Promise<StepResult>;
  expert(session: string, runtime: EnvRuntime, now?: number): Promise<ExpertResponse>;
};

/**
 * The whole authoring surface: tools, tasks, first observation, reward and expert in; an environment
 * speaking edgegym/v1 out. Serve it with `createEnvironmentApp`.
 */
export function defineEnvironment<Task, State, Config>(
  def: EnvironmentDefinition<Task, State, Config>,
): Environment {
  const limits: Limits = { ...DEFAULT_LIMITS, ...def.limits };
  const heldOut = new Set(def.tasks.heldOut ?? ["test"]);
  const hashes = new WeakMap<object, Promise<string>>();
  /** JSON Schema generation is costly and the tools never change, so the manifest's view is built once. */
  const tools = toolSpecs(def as EnvironmentDefinition<unknown, unknown, unknown>);

  const resolve = <T>(v: T | ((rt: EnvRuntime) => T | Promise<T>), rt: EnvRuntime): Promise<T> =>
    Promise.resolve(typeof v === "function" ? (v as (rt: EnvRuntime) => T | Promise<T>)(rt) : v);

  const hashOf = (runtime: EnvRuntime): Promise<string> => {
    let h = hashes.get(runtime.bindings);
    if (!h) {
      h = (async () =>
        contentHash({
          protocol: PROTOCOL,
          name: def.name,
          version: def.version,
          tools,
          toolAliases: def.toolAliases ?? {},
          tasks: await resolve(def.tasks.id, runtime),
          limits,
          reward: def.reward,
          config: def.config,
          invalidCallPenalty: def.invalidCallPenalty ?? 0,
        }))();
      hashes.set(runtime.bindings, h);
    }
    return h;
  };

  /**
   * Keys and content hash per bindings object, held resolved so that a step reaches them without
   * awaiting; re-resolved when the bindings' secrets change.
   */
  type Prepared = { keys: KeyRing; hash: string; secret: unknown; signing: unknown };
  const prepared = new WeakMap<object, Prepared>();
  const prepare = (runtime: EnvRuntime): Prepared | Promise<Prepared> => {
    const b = runtime.bindings;
    const p = prepared.get(b);
    if (p && p.secret === b[SESSION_KEY_VAR] && p.signing === b[SIGNING_KEY_VAR]) return p;
    return Promise.all([resolveKeys(def.name, runtime), hashOf(runtime)]).then(([keys, hash]) => {
      const ready = { keys, hash, secret: b[SESSION_KEY_VAR], signing: b[SIGNING_KEY_VAR] };
      prepared.set(b, ready);
      return ready;
    });
  };

  const loadTask = async (split: string, index: number, runtime: EnvRuntime): Promise<Task> =>
    def.tasks.get(split, index, runtime);

  const context = async (
    claims: SessionClaims,
    runtime: EnvRuntime,
  ): Promise<EpisodeContext<Task, State>> => ({
    task: await loadTask(claims.split, claims.index, runtime),
    ref: { split: claims.split, index: claims.index },
    state: claims.state as State,
    step: claims.step,
    seed: claims.seed,
    runtime,
  });

  const open = async (token: string, runtime: EnvRuntime, now: number) => {
    const { keys, hash } = await prepare(runtime);
    const claims = await openSession(token, keys.seal, def.name, hash, now, def.stateSchema);
    if (claims.done) throw new EdgegymError("episode_done", "this episode is finished; start a new session");
    return { keys, hash, claims };
  };

  return {
    name: def.name,
    version: def.version,
    limits,
    definition: def,
    contentHash: hashOf,

    async manifest(runtime) {
      const [keys, hash, splits] = await Promise.all([
        resolveKeys(def.name, runtime),
        hashOf(runtime),
        resolve(def.tasks.splits, runtime),
      ]);
      const counts = await Promise.all(
        splits.map(async (s) => [s, await def.tasks.count(s, runtime)] as const),
      );
      return {
        protocol: PROTOCOL,
        name: def.name,
        version: def.version,
        description: def.description,
        tools,
        splits: Object.fromEntries(counts),
        limits,
        reward: def.reward,
        toolCallFormat: "hermes",
        publicKey: keys.signing.publicJwk,
        contentHash: hash,
      };
    },

    async startSession(request, runtime, now = Date.now()) {
      const splits = await resolve(def.tasks.splits, runtime);
      if (!splits.includes(request.split)) {
        throw new EdgegymError(
          "unknown_split",
          `unknown split "${request.split}"; this environment has ${splits.join(", ")}`,
        );
      }
      const count = await def.tasks.count(request.split, runtime);
      const index =
        request.index ??
        (request.seed === undefined ? randomInt() : mix32(request.seed)) % Math.max(count, 1);
      if (index >= count) {
        throw new EdgegymError(
          "task_out_of_range",
          `task ${index} is out of range; split "${request.split}" has ${count} tasks`,
        );
      }
      const { keys, hash } = await prepare(runtime);
      const seed = request.seed ?? randomInt();
      const task = await loadTask(request.split, index, runtime);
      const base = { task, ref: { split: request.split, index }, step: 0, seed, runtime };
      const state = await def.initialState(task, base);
      const messages = await def.firstObservation({ ...base, state });
      const claims: SessionClaims = {
        v: 1,
        env: def.name,
        h: hash,
        ep: crypto.randomUUID(),
        split: request.split,
        index,
        seed,
        step: 0,
        state,
        ret: 0,
        done: false,
      };
      return {
        session: await sealSession(claims, keys.seal, limits.sessionTtlSeconds, now),
        episodeId: claims.ep,
        task: base.ref,
        observation: { messages },
        done: false,
      };
    },

    async step(request, runtime, now = Date.now()) {
      const { keys, hash, claims } = await open(request.session, runtime, now);
      const action = request.action;
      const size = actionChars(action);
      if (size > limits.maxActionChars) {
        throw new EdgegymError(
          "action_too_large",
          `the action has ${size} characters; the limit is ${limits.maxActionChars}`,
        );
      }
      const ctx = await context(claims, runtime);
      const t = await transition(def, ctx, action, limits);
      const steps = claims.step + 1;
      const truncated = !t.done && steps >= limits.maxSteps;
      const done = t.done || truncated;
      const ret = claims.ret + t.reward;
      const next: SessionClaims = { ...claims, step: steps, state: t.state, ret, done };
      // An episode cut at maxSteps was not solved; a final step carries the env's verdict.
      const info = truncated ? { ...t.info, success: false } : t.info;
      const result: StepResult = {
        session: await sealSession(next, keys.seal, limits.sessionTtlSeconds, now),
        observation: t.observation,
        reward: t.reward,
        done,
        truncated,
        info,
      };
      if (done) {
        result.receipt = await signReceipt(
          {
            env: def.name,
            version: def.version,
            contentHash: hash,
            episodeId: claims.ep,
            task: { split: claims.split, index: claims.index },
            steps,
            return: ret,
            finalReward: t.reward,
            success: info.success === true,
            iat: Math.floor(now / 1000),
          },
          keys.signing,
        );
      }
      return result;
    },

    async expert(session, runtime, now = Date.now()) {
      const { claims } = await open(session, runtime, now);
      if (heldOut.has(claims.split)) {
        throw new EdgegymError(
          "expert_forbidden",
          `the expert does not act on the held-out split "${claims.split}"`,
        );
      }
      return { action: await def.expert(await context(claims, runtime)) };
    },
  };
}

/** Random 32-bit integers drawn in blocks: one CSPRNG call per 256 sessions instead of one each. */
const randomPool = new Uint32Array(256);
let randomNext = randomPool.length;
function randomInt(): number {
  if (randomNext >= randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomNext = 0;
  }
  return randomPool[randomNext++] ?? 0;
}

/** A seed spread over 32 bits (murmur3's finaliser), so nearby seeds pick unrelated tasks. */
export function mix32(seed: number): number {
  let h = seed | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
