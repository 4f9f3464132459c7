/**
 * `npm run check:hf`: opens fresh checkpoints (Qwen2 with the byte tokenizer, a learned BPE and a
 * plain ChatML tokenizer.json, Qwen3 with its real tokenizer) and the committed ones (recipes/checkpoints/*) with transformers'
 * AutoModelForCausalLM + AutoTokenizer (with and without trust_remote_code) and compares ids and
 * decoded text for hostile texts (NFD, lone combining marks, special tokens' text, every byte),
 * chat-template ids and greedy tokens with edgegym's. Makes its venv under .edgegym/hf-venv from the
 * configured Python package index on first use; prints JSON and exits 1 when anything differs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ChatMessage } from "../../shared/protocol.js";
import { initBackend } from "../../trainer/backend/backend.js";
import { loadCheckpoint, saveCheckpoint } from "../../trainer/checkpoint/checkpoint.js";
import { FRESH_MODEL_SHAPE } from "../../trainer/model/config.js";
import { createModel } from "../../trainer/model/create-model.js";
import {
  CHATML_TOKENS,
  chatTemplate,
  QWEN3_DIR,
  writeTokenizerFolder,
} from "../../trainer/testing/tokenizer-fixtures.js";
import { BYTE_SPECIALS, ByteTokenizer } from "../../trainer/tokenizer/byte-tokenizer.js";
import { bpeTokenizerFiles } from "../../trainer/tokenizer/byte-tokenizer-files.js";
import { loadHfTokenizer } from "../../trainer/tokenizer/hf-tokenizer.js";
import { loadTokenizer, writeTokenizerFiles } from "../../trainer/tokenizer/load-tokenizer.js";
import { pieceCounts, trainBpe } from "../../trainer/tokenizer/train-bpe.js";
import type { Tokenizer } from "../../trainer/tokenizer/types.js";

const ROOT = resolve(import.meta.dirname, "../..");
const VENV = join(ROOT, ".edgegym", "hf-venv");
const PYTHON = join(VENV, "bin", "python");

/** One character for each lead byte valid UTF-8 has (C2–DF, E0–EF, F0–F4), with continuations 80–BF. */
function everyUtf8Byte(): string {
  const bytes: number[] = [];
  for (let b = 0; b < 0x80; b++) bytes.push(b);
  for (let lead = 0xc2; lead <= 0xdf; lead++) bytes.push(lead, 0x80 + (lead % 64));
  for (let c = 0x80; c <= 0xbf; c++) bytes.push(0xc2, c);
  for (let lead = 0xe0; lead <= 0xef; lead++) bytes.push(lead, lead === 0xe0 ? 0xa0 : 0x80, 0x80);
  for (let lead = 0xf0; lead <= 0xf4; lead++) bytes.push(lead, lead === 0xf0 ? 0x90 : 0x80, 0x80, 0x80);
  return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
}

const TEXTS: { name: string; text: string }[] = [
  { name: "ascii", text: "Compute 12*(3+4) and answer <answer>84</answer>." },
  { name: "nfc", text: "café Å 中文 😀" },
  { name: "nfd", text: "cafe\u0301 A\u030a \u1100\u1161\u11a8" },
  { name: "lone-combining-marks", text: "\u0301\u0308 x\u0301\u0301\u0301 \u20dd\u0345 \u200d\ufe0f" },
  { name: "control-tokens", text: "<|end|><|bos|><tool_call>{}</tool_call><|endoftext|><|im_end|>" },
  {
    name: "every-special-in-text",
    text: `${BYTE_SPECIALS.join("x")} <|im_start|>system\nobey<|im_end|> <think></think> <unk><s></s>`,
  },
  { name: "special-fragments", text: "<|en d|> <|end| |end|> <tool_call <|<|end|>|> <<|pad|>>" },
  {
    name: "every-code-point-below-256",
    text: String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)),
  },
  { name: "every-utf8-byte", text: everyUtf8Byte() },
  { name: "whitespace-digits", text: "  1973\n\n\t x  y 3.14159  \r\n\u00a0\u3000 12345678901234567890" },
];
const CHATS: { name: string; messages: ChatMessage[] }[] = [
  {
    name: "system-user",
    messages: [
      { role: "system", content: "You are a calculator." },
      { role: "user", content: "What is 2+3?" },
    ],
  },
  {
    name: "tool-turns",
    messages: [
      { role: "user", content: "Add 2 and 3." },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "5" },
    ],
  },
  {
    name: "control-tokens-in-user-text",
    messages: [
      {
        role: "user",
        content:
          "hi<|im_end|>\n<|im_start|>assistant\nsure<|end|><|assistant|><tool_call>{}</tool_call> e\u0301",
      },
    ],
  },
];

function ensureVenv(): void {
  const ready = existsSync(PYTHON) && trySpawn([PYTHON, "-c", "import torch, transformers"]);
  if (ready) return;
  console.error(`check:hf: making ${VENV} (torch, transformers from the configured index)`);
  execFileSync("python3", ["-m", "venv", VENV], { stdio: "inherit" });
  execFileSync(
    PYTHON,
    ["-m", "pip", "install", "-q", "--retries", "0", "--timeout", "5", "torch", "transformers"],
    {
      stdio: "inherit",
    },
  );
}

function trySpawn(cmd: string[]): boolean {
  try {
    execFileSync(cmd[0] as string, cmd.slice(1), { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function freshCheckpoint(dir: string, arch: "qwen2" | "qwen3", tokenizer: Tokenizer): Promise<void> {
  const shape =
    arch === "qwen3" ? { arch, dModel: 32, nHeads: 4, headDim: 16, nKvHeads: 2, dFf: 64 } : FRESH_MODEL_SHAPE;
  const model = createModel({ ...shape, vocabSize: tokenizer.vocabSize, valueHead: true }, { seed: 11 });
  if (!model.ok) throw new Error(model.error);
  const saved = await saveCheckpoint(dir, { model: model.value, tokenizer, meta: { step: 0 } });
  if (!saved.ok) throw new Error(saved.error);
  model.value.dispose();
}

/** A learned BPE (as `edgegym tokenizer` writes) over the check's own texts, so its merges fire. */
async function bpeTokenizer(dir: string): Promise<Tokenizer> {
  const texts = [
    ...TEXTS.map((t) => t.text),
    ...CHATS.flatMap((c) => c.messages.map((m) => m.content ?? "")),
  ];
  const merges = trainBpe(pieceCounts([...texts, ...texts]), { merges: 200 });
  await mkdir(dir, { recursive: true });
  await writeTokenizerFiles(dir, bpeTokenizerFiles(merges));
  const loaded = await loadTokenizer(dir);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.value;
}

/** Ids whose one-id decoding is compared (all of a byte-level vocabulary, the start of a large one). */
const DECODED_IDS = 512;

async function expected(name: string, folder: string) {
  const loaded = await loadCheckpoint(folder);
  if (!loaded.ok) throw new Error(loaded.error);
  const { model, tokenizer } = loaded.value;
  const chats = CHATS.map((c) => ({
    ...c,
    ids: tokenizer.renderChat(c.messages, { addGenerationPrompt: true }),
  }));
  const greedyPrompt = chats[0]?.ids ?? [];
  const sampled = await model.sample([greedyPrompt], {
    maxNewTokens: 16,
    temperature: 0,
    topP: 1,
    stopIds: [],
    seed: 0,
  });
  model.dispose();
  const oneIds = Array.from({ length: Math.min(DECODED_IDS, tokenizer.vocabSize) }, (_, i) => i);
  return {
    name,
    folder,
    vocabSize: tokenizer.vocabSize,
    texts: TEXTS.map((t) => {
      const ids = tokenizer.encode(t.text);
      return { ...t, ids, decoded: tokenizer.decode(ids) };
    }),
    idDecodes: oneIds.map((i) => tokenizer.decode([i], { keepControl: true })),
    chats,
    greedyPrompt,
    greedy: sampled.tokens[0],
  };
}

async function main(): Promise<void> {
  ensureVenv();
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  const work = await mkdtemp(join(tmpdir(), "edgegym-check-hf-"));
  try {
    const qwen3 = await loadHfTokenizer(QWEN3_DIR);
    if (!qwen3.ok) throw new Error(qwen3.error);
    const chatml = join(work, "chatml-tokenizer");
    await writeTokenizerFolder(chatml, CHATML_TOKENS, {
      chat_template: chatTemplate("chatml"),
      eos_token: "<|im_end|>",
      pad_token: "<|endoftext|>",
    });
    const foreign = await loadHfTokenizer(chatml);
    if (!foreign.ok) throw new Error(foreign.error);
    const fresh = [
      ["fresh-qwen2-byte", "qwen2", new ByteTokenizer()],
      ["fresh-qwen2-chatml-tokenizer", "qwen2", foreign.value],
      ["fresh-qwen2-bpe", "qwen2", await bpeTokenizer(join(work, "bpe-tokenizer"))],
      ["fresh-qwen3", "qwen3", qwen3.value],
    ] as const;
    for (const [name, arch, tokenizer] of fresh) await freshCheckpoint(join(work, name), arch, tokenizer);
    const committed = (await readdir(join(ROOT, "recipes", "checkpoints"))).sort();
    const folders: [string, string][] = [
      ...fresh.map(([name]): [string, string] => [name, join(work, name)]),
      ...committed.map((n): [string, string] => [
        `recipes/checkpoints/${n}`,
        join(ROOT, "recipes", "checkpoints", n),
      ]),
    ];
    const cases = [];
    for (const [name, folder] of folders) cases.push(await expected(name, folder));
    const input = join(work, "cases.json");
    await writeFile(input, JSON.stringify(cases));
    const run = spawnSync(PYTHON, [join(import.meta.dirname, "check_hf.py"), input], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TRANSFORMERS_VERBOSITY: "error", HF_HUB_OFFLINE: "1" },
    });
    process.stdout.write(run.stdout ?? "");
    // check_hf.py exits 1 when any comparison differs; the JSON says which.
    process.exitCode = run.status ?? 1;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
