import { SingleBar } from "cli-progress";

/** Keys shown on the progress bar and in the per-iteration line, when present. */
const SHOWN = [
  "reward/mean",
  "reward/success",
  "losses/policy",
  "losses/sft",
  "perf/train_tokens_per_s",
] as const;

const fmt = (m: Record<string, number>) =>
  SHOWN.filter((k) => typeof m[k] === "number")
    .map((k) => `${k}=${(m[k] as number).toFixed(3)}`)
    .join(" ");

/**
 * Iteration progress: a bar on a TTY, otherwise one line per iteration (CI logs stay readable).
 * Returns the per-iteration callback and `stop`.
 */
export function iterationProgress(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const tty = stream.isTTY === true;
  const bar = tty
    ? new SingleBar({ format: `${label} [{bar}] {value}/{total} {metrics}`, stream, hideCursor: true })
    : undefined;
  let started = false;
  return {
    update(iteration: number, total: number, metrics: Record<string, number>) {
      if (bar) {
        if (!started) bar.start(total, 0, { metrics: "" });
        started = true;
        bar.update(iteration, { metrics: fmt(metrics) });
        return;
      }
      stream.write(`${label} ${iteration}/${total} ${fmt(metrics)}\n`);
    },
    stop() {
      if (started) bar?.stop();
    },
  };
}

/**
 * Episode progress over a fixed number of tasks: a bar on a TTY, otherwise a line each time another
 * `1/lines` of the tasks has ended (and at the last), so a log of 1,000 tasks stays short.
 */
export function taskProgress(label: string, lines: number, stream: NodeJS.WriteStream = process.stderr) {
  const bar =
    stream.isTTY === true
      ? new SingleBar({ format: `${label} [{bar}] {value}/{total} tasks`, stream, hideCursor: true })
      : undefined;
  let started = false;
  return {
    update(done: number, total: number) {
      if (bar) {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
        return;
      }
      const every = Math.max(1, Math.ceil(total / Math.max(1, lines)));
      if (done % every === 0 || done === total) stream.write(`${label} ${done}/${total} tasks\n`);
    },
    stop() {
      if (started) bar?.stop();
    },
  };
}
