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
