// Success by question kind of an `edgegym eval --split validation` on search-l1: the kind is the task's
// question with its entity (the supporting title) replaced by X. Usage: npx tsx by-kind.ts <eval dir>
import { readFileSync } from "node:fs";
import { worldTask } from "../../../../environments/search/questions.js";

const dir = process.argv[2] ?? ".";
const kinds = new Map<string, { n: number; ok: number }>();
for (const line of readFileSync(`${dir}/trajectories.jsonl`, "utf8").trim().split("\n")) {
  const e = JSON.parse(line) as { task: { index: number }; success: boolean };
  const task = worldTask("validation", e.task.index, 1);
  const kind = task.supporting.reduce((q, t) => q.replace(t, "X"), task.question);
  const k = kinds.get(kind) ?? { n: 0, ok: 0 };
  kinds.set(kind, { n: k.n + 1, ok: k.ok + (e.success ? 1 : 0) });
}
const rows = [...kinds].sort((a, b) => b[1].n - a[1].n);
console.log(`${dir}: success by question kind (n, success, question with its entity as X)`);
for (const [kind, { n, ok }] of rows) console.log(`${String(n).padStart(4)} ${(ok / n).toFixed(2)} ${kind}`);
