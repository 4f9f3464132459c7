import type { BackendName } from "../backend/names.js";
import type { ModelConfig, SampleOptions, SampleResult } from "../model/types.js";
import type { TaskRef } from "./shard-task.js";

/** Which of a thread's models a message is about. */
export type ModelRole = "policy" | "reference";

/** Sampling options that can cross threads (a per-token callback cannot). */
export type PortableSampleOptions = Omit<SampleOptions, "onToken">;

/** Main thread → worker. Each request gets exactly one {@link Reply} with its id, in order. */
export type RequestBody =
  | { kind: "init"; backend: BackendName; models: { role: ModelRole; config: ModelConfig }[] }
  | { kind: "weights"; role: ModelRole; values: Float32Array[] }
  | { kind: "sample"; prompts: number[][]; opts: PortableSampleOptions }
  | { kind: "loss"; task: TaskRef; inputs: unknown[] }
  | { kind: "forward"; task: TaskRef; input: unknown };
export type Request = RequestBody & { id: number };
export type Kind = RequestBody["kind"];
/** A request's fields beside its kind and id. */
export type Fields<K extends Kind> = Omit<Extract<RequestBody, { kind: K }>, "kind">;

/** What each request kind answers with. */
export type Answers = {
  init: null;
  weights: null;
  sample: SampleResult;
  loss: { grads: (Float32Array | null)[]; notes: Record<string, number> };
  forward: unknown;
};

export type Reply = { id: number } & ({ ok: true; value: unknown } | { ok: false; error: string });
