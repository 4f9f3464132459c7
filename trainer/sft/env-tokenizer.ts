import { mkdir } from "node:fs/promises";
import { err, ok, type Result } from "../../shared/result.js";
import type { EnvClient } from "../client/env-client.js";
import { collectDemos, type DemoOptions } from "../rollout/demos.js";
import type { Trajectory } from "../rollout/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { bpeTokenizerFiles } from "../tokenizer/byte-tokenizer-files.js";
import { loadTokenizer, writeTokenizerFiles } from "../tokenizer/load-tokenizer.js";
import { pieceCounts, trainBpe } from "../tokenizer/train-bpe.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { sftRows } from "./rows.js";

export type EnvTokenizerResult = {
  merges: number;
  vocabSize: number;
  /** Demonstrations the merges were learned from (solved expert episodes). */
  episodes: number;
  /** Mean tokens in an expert episode's SFT row(s), byte tokenizer then the new one. */
  tokensPerEpisode: { byte: number; bpe: number };
};

/**
 * A tokenizer for one env: the byte tokenizer plus `merges` BPE merges learned from the text of the
 * env's expert episodes (prompts, tool results and answers; the specials are kept whole), written to
 * `out` as `tokenizer.json` + `tokenizer_config.json`. The same episodes are then rendered with it,
 * so the figure it reports is the SFT row length a run will see.
 */
export async function trainEnvTokenizer(
  client: EnvClient,
  demos: Omit<DemoOptions, "concurrency">,
  opts: { merges: number; out: string },
): Promise<Result<EnvTokenizerResult>> {
  const byte = new ByteTokenizer();
  const solved = async (tokenizer: Tokenizer) =>
    (await collectDemos(client, tokenizer, { ...demos, concurrency: 16 })).filter(
      (d) => d.success && d.failure === undefined,
    );
  const byteDemos = await solved(byte);
  if (byteDemos.length === 0)
    return err("the expert solved none of the episodes, so there is no text to learn from");
  const merges = trainBpe(pieceCounts(byteDemos.flatMap(textRuns)), { merges: opts.merges });
  try {
    await mkdir(opts.out, { recursive: true });
    await writeTokenizerFiles(opts.out, bpeTokenizerFiles(merges));
  } catch (e) {
    return err(`cannot write the tokenizer to ${opts.out}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const bpe = await loadTokenizer(opts.out);
  if (!bpe.ok) return bpe;
  const bpeDemos = await solved(bpe.value);
  return ok({
    merges: merges.length,
    vocabSize: bpe.value.vocabSize,
    episodes: byteDemos.length,
    tokensPerEpisode: { byte: rowTokens(byteDemos), bpe: rowTokens(bpeDemos) },
  });
}

/** The text between special ids of an episode's byte-tokenized conversation (the last step holds it all). */
function textRuns(t: Trajectory): string[] {
  const last = t.steps.at(-1);
  if (last === undefined) return [];
  const decoder = new TextDecoder();
  const runs: string[] = [];
  let bytes: number[] = [];
  for (const id of [...last.promptIds, ...last.responseIds]) {
    if (id < 256) bytes.push(id);
    else if (bytes.length > 0) {
      runs.push(decoder.decode(Uint8Array.from(bytes)));
      bytes = [];
    }
  }
  if (bytes.length > 0) runs.push(decoder.decode(Uint8Array.from(bytes)));
  return runs;
}

const rowTokens = (demos: readonly Trajectory[]): number =>
  demos.length === 0 ? 0 : sftRows(demos).reduce((a, r) => a + r.tokens.length, 0) / demos.length;
