/**
 * A worker thread holding copies of the policy (and the KL reference): it samples, and computes the
 * gradient or forward results of its shard of a batch, for {@link PolicyPool}. tfjs-wasm runs on one
 * thread per instance, so each worker is one more core's worth of tfjs.
 */
import { parentPort } from "node:worker_threads";
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import type { Reply, Request } from "./protocol.js";
import { resolveTask, type ShardModels, shardGradients } from "./shard-task.js";
import { assignWeights } from "./weight-sync.js";

const port = parentPort;
if (port === null) throw new Error("policy-worker.ts runs only as a worker thread");

const models: Partial<ShardModels> = {};

function model(role: "policy" | "reference"): PolicyModel {
  const m = models[role];
  if (m === undefined) throw new Error(`this thread has no ${role} model`);
  return m;
}

async function handle(msg: Request): Promise<{ value: unknown; transfer?: ArrayBuffer[] }> {
  switch (msg.kind) {
    case "init": {
      const backend = await initBackend(msg.backend);
      if (!backend.ok) throw new Error(`no tfjs backend ${msg.backend} in the worker: ${backend.error}`);
      for (const { role, config } of msg.models) {
        const created = createModel(config, { seed: 0 });
        if (!created.ok) throw new Error(created.error);
        models[role] = created.value;
      }
      return { value: null };
    }
    case "weights":
      assignWeights(model(msg.role), msg.values);
      return { value: null };
    case "sample":
      return { value: await model("policy").sample(msg.prompts, msg.opts) };
    case "loss": {
      const task = await resolveTask(msg.task);
      if (task.loss === undefined) throw new Error(`${msg.task.name} is not a loss task`);
      const out = await shardGradients({ policy: model("policy"), ...models }, task.loss, msg.inputs);
      const grads = await Promise.all(
        out.grads.map(async (g) => (g === null ? null : ((await g.data()) as Float32Array).slice())),
      );
      tf.dispose(out.grads.filter((g): g is tf.Tensor => g !== null));
      const transfer = grads.flatMap((g) => (g === null ? [] : [g.buffer as ArrayBuffer]));
      return { value: { grads, notes: out.notes }, transfer };
    }
    case "forward": {
      const task = await resolveTask(msg.task);
      if (task.forward === undefined) throw new Error(`${msg.task.name} is not a forward task`);
      return { value: await task.forward({ policy: model("policy"), ...models }, msg.input) };
    }
  }
}

// One request at a time, in arrival order: a weights update lands before the work posted after it.
let chain: Promise<void> = Promise.resolve();
port.on("message", (msg: Request) => {
  chain = chain.then(async () => {
    let reply: Reply;
    let transfer: ArrayBuffer[] = [];
    try {
      const out = await handle(msg);
      reply = { id: msg.id, ok: true, value: out.value };
      transfer = out.transfer ?? [];
    } catch (e) {
      reply = { id: msg.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    port.postMessage(reply, transfer);
  });
});
