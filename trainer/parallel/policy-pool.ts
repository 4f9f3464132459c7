import type { Worker } from "node:worker_threads";
import * as tf from "@tensorflow/tfjs-core";
import type { BackendName } from "../backend/names.js";
import type { PolicyModel, SampleOptions, SampleResult } from "../model/types.js";
import type { Generator } from "../rollout/types.js";
import type { Answers, Fields, Kind, ModelRole, PortableSampleOptions, Reply, Request } from "./protocol.js";
import { type ForwardTask, type LossTask, type ShardModels, shardGradients } from "./shard-task.js";
import { shardedSample } from "./sharded-sample.js";
import { WeightTracker } from "./weight-sync.js";

type Pending = { resolve: (value: unknown) => void; reject: (e: Error) => void };
type Thread = { worker: Worker; pending: Map<number, Pending>; dead?: Error };

/**
 * Data parallelism over `workers` cores: the main thread plus `workers − 1` worker threads, each with
 * its own tfjs instance and copies of the models. Work is split into shards; shard 0 runs on the main
 * thread while the others run on the workers. Weights follow the main thread's models: every call
 * first sends whatever changed since the last one, so workers never compute with stale weights.
 * One core is the pool of one ({@link PolicyPool.of}): no thread, no weight copies, every shard
 * task run here, so a trainer has one compute path whatever `workers` is.
 */
export class PolicyPool {
  private nextId = 0;
  private readonly trackers: [ModelRole, WeightTracker][];

  private constructor(
    private readonly threads: Thread[],
    readonly models: ShardModels,
  ) {
    // With no thread to keep in step, nothing is copied.
    this.trackers = threads.length === 0 ? [] : [["policy", new WeightTracker(models.policy)]];
    if (threads.length > 0 && models.reference)
      this.trackers.push(["reference", new WeightTracker(models.reference)]);
  }

  /** The pool of one: `models` on this thread alone. */
  static of(models: ShardModels): PolicyPool {
    return new PolicyPool([], models);
  }

  /**
   * Starts `workers − 1` threads on `backend` (the main thread's) with copies of `models`; one
   * worker or fewer is {@link PolicyPool.of}.
   */
  static async start(workers: number, backend: BackendName, models: ShardModels): Promise<PolicyPool> {
    if (workers <= 1) return PolicyPool.of(models);
    const { Worker } = await import("node:worker_threads");
    const url = new URL("./worker-bootstrap.mjs", import.meta.url);
    const threads = Array.from({ length: workers - 1 }, (): Thread => {
      const thread: Thread = { worker: new Worker(url), pending: new Map() };
      const fail = (e: Error) => {
        thread.dead ??= e;
        for (const p of thread.pending.values()) p.reject(e);
        thread.pending.clear();
      };
      // An idle pool must not keep the process alive (a run that failed between calls still exits).
      thread.worker.unref();
      thread.worker.on("message", (reply: Reply) => {
        const p = thread.pending.get(reply.id);
        thread.pending.delete(reply.id);
        if (thread.pending.size === 0) thread.worker.unref();
        if (reply.ok) p?.resolve(reply.value);
        else p?.reject(new Error(`policy worker: ${reply.error}`));
      });
      thread.worker.on("error", fail);
      thread.worker.on("exit", (code) => fail(new Error(`policy worker exited with code ${code}`)));
      return thread;
    });
    const pool = new PolicyPool(threads, models);
    const roles = pool.trackers.map(([role]) => role);
    try {
      await pool.all("init", {
        backend,
        models: roles.map((role) => ({ role, config: (models[role] as PolicyModel).config })),
      });
      await pool.syncWeights();
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  /** How many shards a call can use: the main thread and each worker. */
  get size(): number {
    return this.threads.length + 1;
  }

  private request<K extends Kind>(thread: Thread, kind: K, fields: Fields<K>) {
    if (thread.dead) return Promise.reject(thread.dead);
    const id = this.nextId++;
    return new Promise<Answers[K]>((resolve, reject) => {
      thread.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      thread.worker.ref();
      thread.worker.postMessage({ ...fields, kind, id } as unknown as Request);
    });
  }

  private all<K extends Kind>(kind: K, fields: Fields<K>) {
    return Promise.all(this.threads.map((t) => this.request(t, kind, fields)));
  }

  /** Sends the weights that changed since the last call to every worker. */
  async syncWeights(): Promise<void> {
    for (const [role, tracker] of this.trackers) {
      const values = await tracker.changed();
      if (values !== undefined) await this.all("weights", { role, values });
    }
  }

  /**
   * The sum of every pass loss's gradient, `shards[k]` computed by thread k (shard 0 here), as a map
   * by the main policy's variable names (variables no pass reached are absent), and the summed notes.
   * Each pass loss carries its own share of the step's normaliser, so the sum is the step's gradient
   * up to the order of float additions.
   */
  async gradients<I>(
    task: LossTask<I>,
    shards: readonly (readonly I[])[],
  ): Promise<{ grads: tf.NamedTensorMap; notes: Record<string, number> }> {
    if (shards.length > this.size) throw new RangeError(`${shards.length} shards for ${this.size} threads`);
    await this.syncWeights();
    const ref = { module: task.module, name: task.name };
    const remote = shards
      .slice(1)
      .map((inputs, k) =>
        this.request(this.threads[k] as Thread, "loss", { task: ref, inputs: [...inputs] }),
      );
    // The main thread's shard runs while the workers run theirs; a failed worker still frees it.
    const settled = Promise.allSettled(remote);
    const local = await shardGradients(this.models, task.loss, shards[0] ?? []);
    const results = await settled;
    const variables = this.models.policy.trainableVariables;
    const grads: tf.NamedTensorMap = {};
    const notes = { ...local.notes };
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      tf.dispose(local.grads.filter((g): g is tf.Tensor => g !== null));
      throw failed.reason;
    }
    const remoteGrads = results.map((r) => (r as PromiseFulfilledResult<Answers["loss"]>).value);
    for (const r of remoteGrads) for (const [k, v] of Object.entries(r.notes)) notes[k] = (notes[k] ?? 0) + v;
    variables.forEach((v, i) => {
      let sum = local.grads[i] ?? null;
      for (const r of remoteGrads) {
        const g = r.grads[i];
        if (g === null || g === undefined) continue;
        const t = tf.tensor(g, v.shape, "float32");
        if (sum === null) sum = t;
        else {
          const next = tf.add(sum, t);
          tf.dispose([sum, t]);
          sum = next;
        }
      }
      if (sum !== null) grads[v.name] = sum;
    });
    return { grads, notes };
  }

  /** `task` over each input, input k on thread k (input 0 here). */
  async forward<I, O>(task: ForwardTask<I, O>, inputs: readonly I[]): Promise<O[]> {
    if (inputs.length > this.size) throw new RangeError(`${inputs.length} shards for ${this.size} threads`);
    await this.syncWeights();
    const ref = { module: task.module, name: task.name };
    const remote = inputs
      .slice(1)
      .map((input, k) => this.request(this.threads[k] as Thread, "forward", { task: ref, input }));
    const settled = Promise.allSettled(remote);
    const local = inputs.length > 0 ? [await task.forward(this.models, inputs[0] as I)] : [];
    const results = await settled;
    return [
      ...local,
      ...results.map((r) => {
        if (r.status === "rejected") throw r.reason;
        return r.value as O;
      }),
    ];
  }

  /** Samples `parts[k]` on thread k (part 0 here) and returns the results in order. */
  async sampleOn(
    parts: readonly { prompts: number[][]; opts: PortableSampleOptions }[],
  ): Promise<SampleResult[]> {
    if (parts.length > this.size) throw new RangeError(`${parts.length} shards for ${this.size} threads`);
    await this.syncWeights();
    // Workers get their shards before the main thread starts its own (generate's prefill blocks).
    const remote = parts
      .slice(1)
      .map((p, k) => this.request(this.threads[k] as Thread, "sample", { prompts: p.prompts, opts: p.opts }));
    const first = parts[0];
    const local = first ? [this.models.policy.sample(first.prompts, first.opts)] : [];
    const settled = await Promise.allSettled([...local, ...remote]);
    return settled.map((r) => {
      if (r.status === "rejected") throw r.reason;
      return r.value;
    });
  }

  /** {@link shardedSample} over this pool. */
  sample(prompts: readonly (readonly number[])[], opts: SampleOptions): Promise<SampleResult> {
    return shardedSample(this, prompts, opts);
  }

  /** The pool as the rollout loop's sampler. */
  generator(): Generator {
    return { config: this.models.policy.config, sample: (prompts, opts) => this.sample(prompts, opts) };
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
