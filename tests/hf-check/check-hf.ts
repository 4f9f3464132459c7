/**
 * `npm run check:hf`: opens a fresh checkpoint and the committed ones (recipes/checkpoints/*) with
 * transformers' AutoModelForCausalLM + AutoTokenizer and compares ids for texts (NFD, control
 * tokens, every byte), chat-template ids and greedy tokens with edgegym's. Makes its venv under
 * .edgegym/hf-venv from the configured Python package index on first use; prints JSON.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ChatMessage } from "../../shared/protocol.js";
import { initBackend } from "../../trainer/backend/backend.js";
import { loadCheckpoint, saveCheckpoint } from "../../trainer/checkpoint/checkpoint.js";
import { FRESH_MODEL_SHAPE } from "../../trainer/model/config.js";
import { createModel } from "../../trainer/model/create-model.js";
import { QWEN3_DIR } from "../../trainer/testing/tokenizer-fixtures.js";
import { ByteTokenizer } from "../../trainer/tokenizer/byte-tokenizer.js";
import { loadHfTokenizer } from "../../trainer/tokenizer/hf-tokenizer.js";
import type { Tokenizer } from "../../trainer/tokenizer/types.js";

const ROOT = resolve(import.meta.dirname, "../..");
const VENV = join(ROOT, ".edgegym", "hf-venv");
const PYTHON = join(VENV, "bin", "python");

const TEXTS: { name: string; text: string }[] = [
  { name: "ascii", text: "Compute 12*(3+4) and answer <answer>84</answer>." },
  { name: "nfc", text: "café Å 中文 😀" },
  { name: "nfd", text: "cafe\u0301 A\u030a" },
  { name: "control-tokens", text: "<|end|><|bos|><tool_call>{}</tool_call><|endoftext|><|im_end|>" },
  {
    name: "every-code-point-below-256",
    text: String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)),
  },
  { name: "whitespace-digits", text: "  1973\n\n\t x  y 3.14159  " },
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
  return {
    name,
    folder,
    texts: TEXTS.map((t) => ({ ...t, ids: tokenizer.encode(t.text) })),
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
    await freshCheckpoint(join(work, "fresh-qwen2-byte"), "qwen2", new ByteTokenizer());
    await freshCheckpoint(join(work, "fresh-qwen3"), "qwen3", qwen3.value);
    const committed = (await readdir(join(ROOT, "recipes", "checkpoints"))).sort();
    const folders = [
      ["fresh-qwen2-byte", join(work, "fresh-qwen2-byte")],
      ["fresh-qwen3", join(work, "fresh-qwen3")],
      ...committed.map((n) => [`recipes/checkpoints/${n}`, join(ROOT, "recipes", "checkpoints", n)]),
    ] as const;
    const cases = [];
    for (const [name, folder] of folders) cases.push(await expected(name, folder));
    const input = join(work, "cases.json");
    await writeFile(input, JSON.stringify(cases));
    const out = execFileSync(PYTHON, [join(import.meta.dirname, "check_hf.py"), input], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TRANSFORMERS_VERBOSITY: "error", HF_HUB_OFFLINE: "1" },
    });
    process.stdout.write(out);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
