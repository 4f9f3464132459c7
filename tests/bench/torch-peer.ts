/**
 * Runs tests/bench/torch-peer.py (the same decoder, shapes and work in PyTorch) for `npm run
 * bench:trainer`, so the ratio to a current PyTorch prints in the same run. The python is
 * $EDGEGYM_TORCH_PYTHON, else ../venv-torch/bin/python beside the checkout, else the venv `npm run
 * check:hf` makes (.edgegym/hf-venv), else python3 on the PATH;
 * the first that imports torch is used.
 */

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(here, "torch-peer.py");

export const INSTALL_HINT =
  "no python with torch found: python3 -m venv ../venv-torch && ../venv-torch/bin/pip install torch " +
  "(CPU wheels), or set EDGEGYM_TORCH_PYTHON=/path/to/python";

export interface PeerThreads {
  /** torch.get_num_threads() as the peer ran. */
  torch_threads: number;
  train_tokens_per_s: number;
  train_tokens_per_cpu_s: number;
  sample_tokens_per_s: number;
  sample_tokens_per_cpu_s: number;
}
export interface PeerResult {
  torch: string;
  python: string;
  load_average: number[];
  threads: Record<string, PeerThreads>;
}

function candidates(): string[] {
  const list: string[] = [];
  if (process.env.EDGEGYM_TORCH_PYTHON) list.push(process.env.EDGEGYM_TORCH_PYTHON);
  const venv = resolve(here, "../../../venv-torch/bin/python");
  if (existsSync(venv)) list.push(venv);
  const hf = resolve(here, "../../.edgegym/hf-venv/bin/python");
  if (existsSync(hf)) list.push(hf);
  list.push("python3");
  return list;
}

/** The first candidate python that imports torch, or null. */
export function findTorchPython(): string | null {
  for (const python of candidates()) {
    const probe = spawnSync(python, ["-c", "import torch"], { timeout: 60_000, stdio: "ignore" });
    if (probe.status === 0) return python;
  }
  return null;
}

/** Runs the peer with the same model config and work; an Error's message says why it failed. */
export function runTorchPeer(
  python: string,
  config: object,
  work: {
    batch: number;
    seq: number;
    sampleBatch: number;
    promptLen: number;
    newTokens: number;
    minSeconds: number;
    threads: number;
  },
): PeerResult {
  const args = [
    SCRIPT,
    "--config",
    JSON.stringify(config),
    ...["--batch", String(work.batch), "--seq", String(work.seq)],
    ...["--sample-batch", String(work.sampleBatch), "--prompt-len", String(work.promptLen)],
    ...["--new-tokens", String(work.newTokens), "--min-seconds", String(work.minSeconds)],
    ...["--threads", String(work.threads)],
  ];
  const run = spawnSync(python, args, { encoding: "utf8", timeout: 600_000 });
  if (run.status !== 0)
    throw new Error(`torch peer failed: ${(run.stderr || run.error?.message || "").trim()}`);
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  return { ...(JSON.parse(line) as Omit<PeerResult, "python">), python };
}
