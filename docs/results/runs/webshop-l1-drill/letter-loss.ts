// Does a checkpoint read which option the instruction names? The expert's webshop-l1 episodes on
// validation goals 0..N-1, teacher-forced: at the option letter the expert clicks on an item page, the
// mean NLL in nats, the share where the checkpoint's argmax is that letter, and how often it would
// click each letter. A policy that ignores the page and spreads over an item's 2 to 5 values pays about
// ln 3 ≈ 1.1 nats; one that reads pays ~0.
// Usage: [SPLIT=train] npx tsx docs/results/runs/webshop-l1-drill/letter-loss.ts <N> <checkpoint>...
// (the goals of SPLIT, validation by default).
import * as tf from "@tensorflow/tfjs-core";
import { startBackend } from "../../../../trainer/backend/start-backend.js";
import { loadCheckpoint } from "../../../../trainer/checkpoint/checkpoint.js";
import { connectEnv } from "../../../../trainer/client/connect-env.js";
import { cliIO } from "../../../../trainer/cli/run-io.js";
import { collectDemos } from "../../../../trainer/rollout/demos.js";
import { sftRows } from "../../../../trainer/sft/rows.js";

const [n = "300", ...checkpoints] = process.argv.slice(2);
const backend = await startBackend("wasm", cliIO);
if (!backend.ok) throw new Error(backend.error);
const env = await connectEnv("local:webshop-l1", 16, process.env, undefined);
if (!env.ok) throw new Error(env.error);
for (const dir of checkpoints) {
  const loaded = await loadCheckpoint(dir, { contextLength: 1536 });
  if (!loaded.ok) throw new Error(loaded.error);
  const { model, tokenizer } = loaded.value;
  const tasks = Array.from({ length: Number(n) }, (_, i) => i);
  const opts = { split: process.env.SPLIT ?? "validation", tasks, maxSteps: 8, concurrency: 8, renderTools: false };
  const demos = await collectDemos(env.value.client, tokenizer, opts, env.value.manifest.tools);
  let nll = 0;
  let hit = 0;
  let count = 0;
  const picked = new Map<string, number>();
  const wanted = new Map<string, number>();
  // "b>a": the expert clicks b and the checkpoint's argmax is a.
  const confusion = new Map<string, number>();
  for (const row of sftRows(demos, [1])) {
    const joined = row.tokens.map((t) => (t < 256 ? String.fromCharCode(t) : "\u0000")).join("");
    const m = [...joined.matchAll(/click\[([a-e])\]/g)].find((x) => row.learn[(x.index ?? 0) + 6]);
    if (!m) continue;
    const at = (m.index ?? 0) + "click[".length;
    tf.tidy(() => {
      const ids = tf.tensor2d([row.tokens.slice(0, at)], undefined, "int32");
      const logits = model.logits(ids) as tf.Tensor3D;
      const last = tf.logSoftmax(logits.slice([0, at - 1, 0], [1, 1, -1]).reshape([-1]));
      const lp = last.arraySync() as number[];
      const best = lp.indexOf(Math.max(...lp));
      const letter = String.fromCharCode(row.tokens[at] as number);
      const choice = best < 256 ? String.fromCharCode(best) : "?";
      nll -= lp[row.tokens[at] as number] ?? 0;
      hit += choice === letter ? 1 : 0;
      count++;
      picked.set(choice, (picked.get(choice) ?? 0) + 1);
      confusion.set(`${letter}>${choice}`, (confusion.get(`${letter}>${choice}`) ?? 0) + 1);
      wanted.set(letter, (wanted.get(letter) ?? 0) + 1);
    });
  }
  const sorted = (m: Map<string, number>) => Object.fromEntries([...m].sort());
  console.log(
    JSON.stringify({
      checkpoint: dir,
      letters: count,
      nll: Number((nll / count).toFixed(3)),
      argmax: Number((hit / count).toFixed(3)),
      expert: sorted(wanted),
      model: sorted(picked),
      confusion: sorted(confusion),
    }),
  );
  model.dispose();
}
await env.value.client.close();
