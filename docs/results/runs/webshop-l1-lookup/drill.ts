// A drill on webshop-l1's option decision from fresh examples. The rows are the expert's item-page rows
// (webshop-l1 1.6.0) of train goals, cut after the option click, with the system prompt's text dropped
// under CROP=1 (its markers stay; a row is half as long). Every example re-draws the order of the
// item's values and which of them the instruction asks for (written into the instruction), so nothing
// about one goal can be learned by heart, and only the decision is learned:
// - MODE=letter (default): the values are re-lettered and the reply is the goal value's new letter.
// - MODE=name: the values are listed without letters, as WebShop lists them, and the reply names the
//   option as the instruction writes it, `click[size: small]` (../webshop-l1-named-probe/); the value's
//   bytes and the closing bracket are learned.
// - NAMES=1 (with MODE=name): the option's name is re-drawn too, uniformly among the names of the train
//   goals' options, and written everywhere the row shows it (both instructions and the page's option
//   header); the reply is learned from the name's first byte.
// - MODE=price: the rows are the expert's results-page rows (all train goals with a price bound), and
//   every example re-draws the shown prices: a result drawn uniformly among those shown is the first
//   whose price is under the instruction's bound (those before it over the bound, those after it
//   anywhere in [0.3, 2] times the bound), and the reply is its number and the closing bracket. ANSWERS=2
//   draws that result among the first two only, so the question is whether result 1 is over the bound.
// - MODE=mix: rows alternate between MODE=name's questions (NAMES=1 by default) and MODE=price's, so
//   that a price drill from a policy that copies the option keeps rehearsing the copy; both held-out
//   sets are scored.
// Every 250 steps it scores 300 validation goals' rows the same way (one fixed draw each), teacher-
// forced: `heldOut` is the share whose every learned byte is the model's argmax, `first` the share of
// the first learned byte, `nll` the mean NLL per learned byte.
// Usage: [CROP=1] [MODE=name|price|mix] npx tsx docs/results/runs/webshop-l1-lookup/drill.ts <init> <out> <examples> <batchRows> <lr> <seed> <goals>
import * as tf from "@tensorflow/tfjs-core";
import { rng } from "../../../../shared/random.js";
import { startBackend } from "../../../../trainer/backend/start-backend.js";
import { loadCheckpoint } from "../../../../trainer/checkpoint/checkpoint.js";
import { cliIO } from "../../../../trainer/cli/run-io.js";
import { connectEnv } from "../../../../trainer/client/connect-env.js";
import { createAdam } from "../../../../trainer/optim/optimizer-step.js";
import { PolicyPool } from "../../../../trainer/parallel/policy-pool.js";
import { sftStep } from "../../../../trainer/sft/step.js";
import { collectDemos } from "../../../../trainer/rollout/demos.js";
import { padSftRows, type SftRow, sftRows } from "../../../../trainer/sft/rows.js";

const [init = "", out = "", examples = "0", batchRows = "16", lr = "5e-4", seed = "1", goals = "3000"] =
  process.argv.slice(2);
const crop = process.env.CROP === "1";
const backend = await startBackend("wasm", cliIO);
if (!backend.ok) throw new Error(backend.error);
const env = await connectEnv("local:webshop-l1", 16, process.env, undefined);
if (!env.ok) throw new Error(env.error);
const loaded = await loadCheckpoint(init, { contextLength: 1536 });
if (!loaded.ok) throw new Error(loaded.error);
const { model, tokenizer } = loaded.value;
const r = rng(Number(seed));
const tasks = Array.from({ length: Number(goals) }, () => r.int(0, 9999));
const play = (split: string, goals: number[]) =>
  collectDemos(
    env.value.client,
    tokenizer,
    { split, tasks: goals, maxSteps: 8, concurrency: 16, renderTools: false },
    env.value.manifest.tools,
  );
const demos = await play("train", tasks);
const heldOutDemos = await play(
  "validation",
  Array.from({ length: 300 }, (_, i) => i),
);
await env.value.client.close();
const mixed = process.env.MODE === "mix";
const named = process.env.MODE === "name" || mixed;

/** An item-page row cut after its option letter, with where the option block and the letter sit. */
type Template = {
  tokens: number[];
  block: [number, number];
  /** Where the instruction writes the goal's value (after `<name>: `). */
  asked: [number, number];
  /** Every earlier place the row writes `<name>: <value>` (the results page's instruction). */
  earlier: number[];
  /** Where the page's option header writes the name. */
  header: number;
  values: string[];
  name: string;
};
const SEP = " [SEP] ";
/** A row's tokens (without the system prompt's text under CROP=1) and their bytes as text, a special token as NUL. */
function rowText(row: number[]): { tokens: number[]; text: string } {
  let tokens = row;
  if (crop) {
    const end = tokens.indexOf(tokenizer.special.endOfTurn, 2);
    tokens = [...tokens.slice(0, 2), ...tokens.slice(end)];
  }
  return { tokens, text: tokens.map((t) => (t < 256 ? String.fromCharCode(t) : "\u0000")).join("") };
}
function templatesOf(trajectories: typeof demos): Template[] {
const templates: Template[] = [];
for (const row of sftRows(
  trajectories.filter((d) => d.success),
  [1],
)) {
  const { tokens, text } = rowText(row.tokens);
  // The item page: `< Prev [SEP] <option> [SEP] <values> [SEP] <title> [SEP] Price: …`, each value
  // after its letter at 1.5.0 and 1.6.0, alone since 1.7.0; the expert clicks the letter or `<option>: <value>`.
  const click = text.lastIndexOf("click[");
  const head = text.indexOf("< Prev [SEP] ");
  if (click < 0 || head < 0) continue;
  const segs = text.slice(head + "< Prev [SEP] ".length).split(SEP);
  const price = segs.findIndex((x) => x.startsWith("Price: "));
  const name = segs[0] ?? "";
  const listed = segs.slice(1, price - 1);
  const lettered = listed[0] === "a" && listed[2] === "b";
  const values = lettered ? listed.filter((_, k) => k % 2 === 1) : listed;
  const clicked = text.slice(click + 6, text.indexOf("]", click));
  const answer = lettered ? "abcde".indexOf(clicked) : values.indexOf(clicked.slice(name.length + 2));
  const start = head + "< Prev [SEP] ".length + name.length + 1;
  const phrase = `${name}: ${values[answer]}`;
  const at = text.lastIndexOf(phrase, start);
  if (price < 3 || answer < 0 || values.length < 2 || at < 0) continue;
  const asked = at + name.length + 2;
  const earlier: number[] = [];
  for (let k = text.indexOf(phrase); k >= 0 && k < at; k = text.indexOf(phrase, k + 1)) earlier.push(k);
  templates.push({
    tokens: tokens.slice(0, click + 7),
    block: [start, start + listed.join(SEP).length + SEP.length],
    asked: [asked, asked + (values[answer] ?? "").length],
    earlier,
    header: start - name.length - 1,
    values,
    name,
  });
}
return templates;
}
const priced = process.env.MODE === "price";
const itemTemplates = templatesOf(demos);
/** A question for each template of these trajectories: a function that draws a fresh row of it. */
const questionsOf = (trajectories: typeof demos, price: boolean, items?: Template[]): (() => SftRow)[] =>
  price
    ? priceTemplatesOf(trajectories).map((t) => () => drawPrice(t))
    : (items ?? templatesOf(trajectories)).map((t) => () => draw(t));
const renamed = named && (process.env.NAMES ?? (mixed ? "1" : "0")) === "1";
const names = [...new Set(itemTemplates.map((t) => t.name))].sort();

/**
 * The template with a fresh question: one of the item's values drawn as the one the instruction asks
 * for (written in its place), and the values in a fresh order. The row ends with the answer.
 */
function draw(t: Template): SftRow {
  const answer = r.int(0, t.values.length - 1);
  const name = renamed ? (names[r.int(0, names.length - 1)] as string) : t.name;
  const order = t.values.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const block = order
    .map((v, k) => (named ? `${SEP.slice(1)}${t.values[v]} ` : `${SEP.slice(1)}${"abcde"[k]}${SEP}${t.values[v]} `))
    .join("");
  const bytes = (text: string) => [...text].map((c) => c.charCodeAt(0));
  const askedValue = t.values[answer] ?? "";
  const phrase = bytes(`${name}: ${askedValue}`);
  const phraseAt = t.asked[0] - t.name.length - 2;
  // Spans [from, to) of the template and what replaces them, applied from the right so that earlier
  // positions stay valid. The header and the phrase keep their name unless it is re-drawn; the earlier
  // instructions change only then, as n1 and n2 had them.
  const spans: [number, number, number[]][] = [
    [t.block[0], t.block[1], bytes(block)],
    [t.header, t.header + t.name.length, bytes(name)],
    [phraseAt, t.asked[1], phrase],
    ...(renamed ? t.earlier.map((k): [number, number, number[]] => [k, k + t.asked[1] - phraseAt, phrase]) : []),
  ];
  let page = t.tokens.slice(0, -1);
  for (const [from, to, insert] of spans.sort((a, b) => b[0] - a[0])) page = [...page.slice(0, from), ...insert, ...page.slice(to)];
  const reply = named ? bytes(`${name}: ${askedValue}]`) : bytes("abcde"[order.indexOf(answer)] ?? "");
  // Without NAMES the option's name is read off the page and only the value (and, named, its bracket)
  // is learned; with it the name is learned too.
  const from = page.length + (named && !renamed ? name.length + 2 : 0);
  const tokens = [...page, ...reply];
  return { tokens, learn: tokens.map((_, i) => i >= from) };
}

/** A results-page row cut after `click[`, with the instruction's price bound and where each shown price sits. */
type PriceTemplate = { tokens: number[]; bound: number; slots: { at: number; end: number; range: boolean }[] };
function priceTemplatesOf(trajectories: typeof demos): PriceTemplate[] {
  const templates: PriceTemplate[] = [];
  for (const row of sftRows(trajectories, [0])) {
    const { tokens, text } = rowText(row.tokens);
    const click = text.lastIndexOf("click[");
    const bound = /price lower than ([\d.]+) dollars/.exec(text);
    const list = text.indexOf("(Total results: ");
    if (click < 0 || bound === null || list < 0) continue;
    const slots = [...text.slice(list, text.indexOf("\u0000", list)).matchAll(/\$[\d.]+( to \$[\d.]+)?/g)].map((m) => ({
      at: list + m.index,
      end: list + m.index + m[0].length,
      range: m[1] !== undefined,
    }));
    if (slots.length >= 2) templates.push({ tokens: tokens.slice(0, click + 7), bound: Number(bound[1]), slots });
  }
  return templates;
}

/** The highest result number a price question answers (ANSWERS, default 5: any shown result). */
const answers = Number(process.env.ANSWERS ?? 5);
/** A price as WebShop's page prints it (Python's `str(float)`), from a whole number of cents. */
const dollars = (cents: number) => (cents % 100 === 0 ? (cents / 100).toFixed(1) : String(cents / 100));

/**
 * The template with fresh prices: result `answer` (drawn uniformly) is the first whose shown price is at
 * most the bound, as the expert opens; a range keeps its form, its low end the shown price.
 */
function drawPrice(t: PriceTemplate): SftRow {
  const answer = r.int(0, Math.min(t.slots.length, answers) - 1);
  const b = Math.round(t.bound * 100);
  let page = t.tokens.slice(0, -1);
  for (let k = t.slots.length - 1; k >= 0; k--) {
    const slot = t.slots[k] as PriceTemplate["slots"][number];
    const lo = k < answer ? r.int(b + 1, 2 * b) : k === answer ? r.int(Math.round(0.3 * b), b) : r.int(Math.round(0.3 * b), 2 * b);
    const tag = slot.range ? `$${dollars(lo)} to $${dollars(lo + r.int(100, Math.max(100, lo)))}` : `$${dollars(lo)}`;
    page = [...page.slice(0, slot.at), ...[...tag].map((c) => c.charCodeAt(0)), ...page.slice(slot.end)];
  }
  const tokens = [...page, ...[...`${answer + 1}]`].map((c) => c.charCodeAt(0))];
  return { tokens, learn: tokens.map((_, i) => i >= page.length) };
}

/** The kinds of question, drawn in turn: one, or under MODE=mix the price's and then the name's. */
const kinds = mixed ? [true, false] : [priced];
const templates = kinds.map((price) => questionsOf(demos, price, itemTemplates));
const heldOut = kinds.map((price) => questionsOf(heldOutDemos, price));
const counts = (sets: unknown[][]) => (mixed ? sets.map((q) => q.length) : sets[0]?.length);
console.log(JSON.stringify({ demos: demos.length, templates: counts(templates), heldOut: counts(heldOut), crop, named, renamed, priced, mixed, names }));
for (const questions of templates) {
  const shown = (questions[0] as () => SftRow)().tokens;
  console.log(shown.map((t) => (t < 256 ? String.fromCharCode(t) : `<${t}>`)).join(""));
}
const fixed = heldOut.map((questions) => questions.map((q) => q()));
/** Teacher-forced on held-out rows: all-bytes-right share, first-byte share, NLL per learned byte. */
function scoreRows(rows: SftRow[]): { heldOut: number; first: number; nll: number } {
  let all = 0;
  let first = 0;
  let nll = 0;
  let bytes = 0;
  for (const row of rows) {
    const from = row.learn.indexOf(true);
    const lp = tf.tidy(() => {
      const ids = tf.tensor2d([row.tokens.slice(0, -1)], undefined, "int32");
      const logits = model.logits(ids) as tf.Tensor3D;
      return tf.logSoftmax(logits.slice([0, from - 1, 0], [1, -1, -1]).reshape([row.tokens.length - from, -1])).arraySync() as number[][];
    });
    let right = true;
    lp.forEach((p, k) => {
      const want = row.tokens[from + k] as number;
      const best = p.indexOf(Math.max(...p));
      if (k === 0 && best === want) first++;
      if (best !== want) right = false;
      nll -= p[want] ?? 0;
      bytes++;
    });
    if (right) all++;
  }
  const share = (x: number) => Number((x / rows.length).toFixed(3));
  return { heldOut: share(all), first: share(first), nll: Number((nll / bytes).toFixed(3)) };
}
/** Every held-out set's score; under MODE=mix keyed `price` and `name`. */
const score = () => (mixed ? { price: scoreRows(fixed[0] ?? []), name: scoreRows(fixed[1] ?? []) } : scoreRows(fixed[0] ?? []));
console.log(JSON.stringify({ step: 0, ...score() }));
const pool = await PolicyPool.start(2, "wasm", { policy: model });
const optimizer = loaded.value.optimizer?.withLearningRate(Number(lr)) ?? createAdam({ learningRate: Number(lr) });
const t0 = performance.now();
let window = 0;
let windowSteps = 0;
const steps = Math.ceil(Number(examples) / Number(batchRows));
for (let s = 1; s <= steps; s++) {
  const rows = Array.from({ length: Number(batchRows) }, (_, k) => {
    const questions = templates[k % templates.length] ?? [];
    return (questions[r.int(0, questions.length - 1)] as () => SftRow)();
  });
  const step = await sftStep(pool, optimizer, padSftRows(rows, tokenizer.special.pad), { maxGradNorm: 1 });
  window += step.loss;
  windowSteps++;
  if (s % 50 === 0 || s === steps) {
    const seconds = (performance.now() - t0) / 1000;
    const held = s % 250 === 0 || s === steps ? score() : {};
    console.log(JSON.stringify({ step: s, examples: s * Number(batchRows), trainNll: Number((window / windowSteps).toFixed(3)), seconds: Math.round(seconds), ...held }));
    window = 0;
    windowSteps = 0;
  }
  if (s % 500 === 0 || s === steps) {
    const saved = await cliIO.saveCheckpoint(`${out}/step-${s}`, { model, tokenizer, optimizer, meta: { step: s, kind: "sft", env: "webshop-l1" } });
    if (!saved.ok) throw new Error(saved.error);
  }
}
await pool.close();
