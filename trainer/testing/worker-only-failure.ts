import { isMainThread } from "node:worker_threads";
import { forwardTask } from "../parallel/shard-task.js";

/** A shard task that succeeds on the main thread and throws on a worker thread (trainer/parallel's tests). */
export const failsOnWorkers = forwardTask(import.meta.url, "failsOnWorkers", (_models, input: number) => {
  if (!isMainThread) throw new Error(`shard ${input} failed on purpose`);
  return input * 2;
});
