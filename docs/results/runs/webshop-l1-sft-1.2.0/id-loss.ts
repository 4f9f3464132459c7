// How far each SFT stage is from copying a product id: the expert's webshop-l1 episodes on validation
// goals 0..N-1, scored teacher-forced under each checkpoint. For the characters of a product id the
// expert clicks on a results page (an asin's eight after "B0", or a word id's all), for the characters of its search queries (the instruction,
// copied) and for every other token the expert sends, it prints the
// mean negative log-likelihood in nats and the share the checkpoint would have chosen itself (argmax),
// and the id characters' NLL place by place (the 5th and 6th are "00" for every product of this catalog).
// A model that guesses an asin's random characters pays about ln 34 = 3.53 nats each; one that copies, ~0.
// The env is the working tree's local:webshop-l1 (asins until webshop 1.2.0, words from 1.3.0).
// Usage: npx tsx docs/results/runs/webshop-l1-sft-1.2.0/id-loss.ts <N> <checkpoint>...
import * as tf from "@tensorflow/tfjs-core";
import { startBackend } from "../../../../trainer/backend/start-backend.js";
import { loadCheckpoint } from "../../../../trainer/checkpoint/checkpoint.js";
import { connectEnv } from "../../../../trainer/client/connect-env.js";
import { cliIO } from "../../../../trainer/cli/run-io.js";
import { collectDemos } from "../../../../trainer/rollout/demos.js";
import { sftRows } from "../../../../trainer/sft/rows.js";

const [n = "50", ...checkpoints] = process.argv.slice(2);
const backend = await startBackend("wasm", cliIO);
if (!backend.ok) throw new Error(backend.error);
const env = await connectEnv("local:webshop-l1", 16, process.env, undefined);
if (!env.ok) throw new Error(env.error);
for (const dir of checkpoints) {
  const loaded = await loadCheckpoint(dir, { contextLength: 1536 });
  if (!loaded.ok) throw new Error(loaded.error);
  const { model, tokenizer } = loaded.value;
  const tasks = Array.from({ length: Number(n) }, (_, i) => i);
  const opts = { split: "validation", tasks, maxSteps: 8, concurrency: 8, renderTools: false };
  const demos = await collectDemos(env.value.client, tokenizer, opts, env.value.manifest.tools);
  const rows = sftRows(demos.filter((d) => d.success));
  const blank = () => ({ nll: 0, hit: 0, n: 0 });
  const sums = { other: blank(), query: blank(), id: blank(), byPlace: Array.from({ length: 12 }, blank) };
  for (const row of rows) {
    // place[t]: the place of an id character in its id, -2 for a query character, -1 for any other.
    const text = row.tokens.map((t) => (t < 256 ? String.fromCharCode(t) : "\u0000"));
    const place = new Array<number>(row.tokens.length).fill(-1);
    const joined = text.join("");
    // -2 marks the characters of a search query (copied from the instruction, words not ids).
    for (const m of joined.matchAll(/search\[([^\]]*)\]/g)) {
      const start = (m.index ?? 0) + "search[".length;
      if (row.learn[start]) for (let k = 0; k < (m[1] ?? "").length; k++) place[start + k] = -2;
    }
    // A click on a results page names a product: an asin (its 8 characters after "B0", the same for
    // every asin, are counted) or, since webshop 1.3.0's lower levels, a word (all its characters).
    if (joined.includes("(Total results"))
      for (const m of joined.matchAll(/click\[(B0)?([^\]]+)\]/g)) {
        const start = (m.index ?? 0) + "click[".length + (m[1] ?? "").length;
        if (row.learn[start]) for (let k = 0; k < (m[2] ?? "").length; k++) place[start + k] = k;
      }
    tf.tidy(() => {
      const ids = tf.tensor2d([row.tokens.slice(0, -1)], undefined, "int32");
      const targets = tf.tensor2d([row.tokens.slice(1)], undefined, "int32");
      const lp = (model.logprobsOf(ids, targets).arraySync()[0] ?? []) as number[];
      const best = (tf.argMax(model.logits(ids), -1).arraySync() as number[][])[0] ?? [];
      for (let t = 1; t < row.tokens.length; t++) {
        if (!row.learn[t]) continue;
        const k = place[t] ?? -1;
        const into = k === -2 ? [sums.query] : k < 0 ? [sums.other] : [sums.id, sums.byPlace[k] ?? blank()];
        for (const s of into) {
          s.nll -= lp[t - 1] ?? 0;
          s.hit += best[t - 1] === row.tokens[t] ? 1 : 0;
          s.n++;
        }
      }
    });
  }
  const show = (s: { nll: number; hit: number; n: number }) => ({
    tokens: s.n,
    nll: Number((s.nll / s.n).toFixed(3)),
    argmax: Number((s.hit / s.n).toFixed(3)),
  });
  const byPlace = sums.byPlace.filter((s) => s.n > 0).map((s) => show(s).nll);
  console.log(JSON.stringify({ checkpoint: dir, rows: rows.length, id: show(sums.id), idNllByPlace: byPlace, query: show(sums.query), other: show(sums.other) }));
  model.dispose();
}
await env.value.client.close();
