import type { SampleOptions, SampleResult } from "../model/types.js";
import type { Generator } from "../rollout/types.js";

/**
 * A test model that answers every prompt with `script(prompt)` token by token, as `generate` does:
 * `onToken` sees each token and may end the row, a stop id ends it, and no row gets more than
 * maxNewTokens. It records every call, and a call can be held until the test releases it, so a
 * test decides what is queued when (never a clock).
 */
export class ScriptedModel implements Generator {
  readonly calls: { prompts: number[][]; opts: SampleOptions }[] = [];
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  /** Resolves when a call has started (since the last `hold`), for tests that queue requests behind it. */
  entered: Promise<void>;
  private enter: () => void = () => {};

  constructor(
    readonly config: { contextLength: number },
    private readonly script: (prompt: readonly number[]) => number[],
  ) {
    this.entered = new Promise((r) => {
      this.enter = r;
    });
  }

  /** The next calls wait in `sample` until `release`; `entered` resolves when the next one starts. */
  hold(): void {
    this.entered = new Promise((r) => {
      this.enter = r;
    });
    this.gate = new Promise((r) => {
      this.open = r;
    });
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  async sample(prompts: readonly (readonly number[])[], opts: SampleOptions): Promise<SampleResult> {
    this.calls.push({ prompts: prompts.map((p) => [...p]), opts });
    this.enter();
    if (this.gate) await this.gate;
    const stops = new Set(opts.stopIds);
    const tokens = prompts.map(() => [] as number[]);
    const finished = prompts.map(() => false);
    prompts.forEach((p, row) => {
      for (const t of this.script(p).slice(0, opts.maxNewTokens)) {
        (tokens[row] as number[]).push(t);
        if (opts.onToken?.(row, t) === true || stops.has(t)) {
          finished[row] = true;
          break;
        }
      }
    });
    return { tokens, logprobs: tokens.map((t) => t.map(() => 0)), finished };
  }
}
