import { randomInt } from "node:crypto";
import type { SampleOptions } from "../model/types.js";
import type { Generator } from "../rollout/types.js";

/** One request's generation: `n` choices of one prompt. */
export type Job = {
  prompt: readonly number[];
  n: number;
  /** Most tokens per choice, stop id included. */
  maxTokens: number;
  /** 0 is greedy. */
  temperature: number;
  topP: number;
  /** Set: the request's choices are drawn in a call of their own, so the seed alone decides them. */
  seed?: number;
  /** Each token as drawn; returning true ends that choice there (stop string, client gone). */
  onToken?: (choice: number, token: number) => boolean | undefined;
};

export type Choice = {
  tokens: number[];
  /** Ended on a stop id or by `onToken`; false when cut at `maxTokens`. */
  stopped: boolean;
};

type Pending = { job: Job; key: string; resolve: (c: Choice[]) => void; reject: (e: unknown) => void };

/**
 * Collects concurrent requests into batched `generate` calls. The model runs one call at a time;
 * requests that arrive while it runs wait, and when it ends every waiting request that can share a
 * call goes into the next one (in arrival order, up to `maxRows` rows). Requests share a call when:
 * - they sample alike: all greedy (temperature 0; top_p and seed change nothing then), or the same
 *   temperature and top_p without a seed. A seeded sampling request runs alone, because in a shared
 *   call the rows draw from one random stream and its output would depend on its neighbours;
 * - the longest prompt plus the largest max_tokens fits the context, because `generate` gives every
 *   row at most contextLength − longest prompt tokens and a row must not be cut short for sharing.
 * Each row still ends at its own max_tokens and stop strings (`onToken`), so sharing a call changes
 * no greedy output.
 */
export class Batcher {
  private readonly queue: Pending[] = [];
  private running = false;
  private seeded = 0;

  constructor(
    private readonly model: Generator,
    private readonly stopIds: readonly number[],
    private readonly maxRows = 32,
    /** Seeds of unseeded sampling calls. */
    private readonly drawSeed: () => number = () => randomInt(2 ** 31),
    /** Told each call's size (rows, requests), for the log and the tests. */
    private readonly onCall: (rows: number, requests: number) => void = () => {},
  ) {}

  /** Requests waiting for a call. */
  get waiting(): number {
    return this.queue.length;
  }

  submit(job: Job): Promise<Choice[]> {
    const key =
      job.temperature === 0
        ? "greedy"
        : job.seed !== undefined
          ? `seeded ${this.seeded++}`
          : `t=${job.temperature} p=${job.topP}`;
    return new Promise((resolve, reject) => {
      this.queue.push({ job, key, resolve, reject });
      this.kick();
    });
  }

  /** Starts a call on the next turn of the event loop, so requests that arrive together share it. */
  private kick(): void {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    setImmediate(() => {
      void this.runNext().finally(() => {
        this.running = false;
        this.kick();
      });
    });
  }

  private take(): Pending[] {
    const first = this.queue[0] as Pending;
    const batch: Pending[] = [];
    let rows = 0;
    let longest = 0;
    let most = 0;
    for (const p of [...this.queue]) {
      if (p.key !== first.key) continue;
      const l = Math.max(longest, p.job.prompt.length);
      const m = Math.max(most, p.job.maxTokens);
      if (batch.length > 0 && (rows + p.job.n > this.maxRows || l + m > this.model.config.contextLength))
        continue;
      batch.push(p);
      rows += p.job.n;
      longest = l;
      most = m;
      this.queue.splice(this.queue.indexOf(p), 1);
    }
    return batch;
  }

  private async runNext(): Promise<void> {
    const batch = this.take();
    const rows = batch.flatMap((p) => Array.from({ length: p.job.n }, (_, choice) => ({ p, choice })));
    const counts = rows.map(() => 0);
    const stopped = rows.map(() => false);
    const stops = new Set(this.stopIds);
    const first = (batch[0] as Pending).job;
    const opts: SampleOptions = {
      maxNewTokens: Math.max(...batch.map((p) => p.job.maxTokens)),
      temperature: first.temperature,
      topP: first.topP,
      stopIds: this.stopIds,
      seed: first.temperature === 0 ? 0 : (first.seed ?? this.drawSeed()),
      onToken: (row, token) => {
        const { p, choice } = rows[row] as (typeof rows)[number];
        const n = ++(counts[row] as number);
        const ended = p.job.onToken?.(choice, token) === true || stops.has(token);
        if (ended) stopped[row] = true;
        return ended || n >= p.job.maxTokens;
      },
    };
    this.onCall(rows.length, batch.length);
    try {
      const out = await this.model.sample(
        rows.map((r) => r.p.job.prompt),
        opts,
      );
      for (const p of batch) {
        const choices = rows.flatMap((r, i) =>
          r.p === p ? [{ tokens: out.tokens[i] ?? [], stopped: stopped[i] ?? false }] : [],
        );
        p.resolve(choices);
      }
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
