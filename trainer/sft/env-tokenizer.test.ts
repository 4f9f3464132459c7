import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectEnv } from "../client/connect-env.js";
import type { EnvClient } from "../client/env-client.js";
import { collectDemos } from "../rollout/demos.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadTokenizer } from "../tokenizer/load-tokenizer.js";
import { trainEnvTokenizer } from "./env-tokenizer.js";

let root = "";
let client: EnvClient;
const demos = { split: "train", tasks: [...Array(24).keys()], maxSteps: 3, renderTools: false };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "edgegym-env-tokenizer-"));
  const env = await connectEnv("local:search-l1", 16);
  if (!env.ok) throw new Error(env.error);
  client = env.value.client;
});
afterAll(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

describe("trainEnvTokenizer on search-l1's expert episodes", () => {
  it("writes a tokenizer that renders each episode to the same text in fewer tokens", async () => {
    const out = join(root, "tok");
    const result = await trainEnvTokenizer(client, demos, { merges: 200, out });
    if (!result.ok) throw new Error(result.error);
    const r = result.value;
    expect(r.episodes).toBe(24);
    expect(r.merges).toBe(200);
    // 268 byte and special ids, then at most one new id per merge.
    expect(r.vocabSize).toBeGreaterThan(268);
    expect(r.vocabSize).toBeLessThanOrEqual(268 + 200);
    expect(r.tokensPerEpisode.bpe).toBeLessThan(r.tokensPerEpisode.byte / 1.5);

    const bpe = await loadTokenizer(out);
    if (!bpe.ok) throw new Error(bpe.error);
    expect(bpe.value.kind).toBe("hf");
    const byte = new ByteTokenizer();
    const opts = { ...demos, tasks: [0, 1, 2], concurrency: 3 };
    const [a, b] = await Promise.all([
      collectDemos(client, byte, opts),
      collectDemos(client, bpe.value, opts),
    ]);
    const text = (t: (typeof a)[number], tok: typeof byte | typeof bpe.value) => {
      const last = t.steps.at(-1);
      return last ? tok.decode([...last.promptIds, ...last.responseIds], { keepControl: true }) : "";
    };
    const sorted = <T extends { task: { index: number } }>(ts: T[]) =>
      ts.sort((x, y) => x.task.index - y.task.index);
    sorted(a);
    sorted(b);
    for (let i = 0; i < 3; i++) {
      const [x, y] = [a[i], b[i]];
      if (!x || !y) throw new Error("missing demo");
      expect(text(y, bpe.value)).toBe(text(x, byte));
      expect(y.steps.at(-1)?.promptIds.length).toBeLessThan(x.steps.at(-1)?.promptIds.length ?? 0);
    }
  });

  it("says it cannot write the folder instead of throwing", async () => {
    const file = join(root, "a-file");
    await writeFile(file, "");
    const result = await trainEnvTokenizer(
      client,
      { ...demos, tasks: [0] },
      { merges: 4, out: join(file, "tok") },
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^cannot write the tokenizer to .*a-file\/tok: ENOTDIR/);
  });
});
