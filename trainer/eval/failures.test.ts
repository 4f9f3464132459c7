import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { proceduralTask } from "../../environments/calculator/tasks.js";
import { aggregate } from "../../shared/eval-aggregate.js";
import { err } from "../../shared/result.js";
import { parseConfig } from "../config/parse-config.js";
import { createServeApp } from "../serve/app.js";
import { Batcher } from "../serve/batcher.js";
import { closedPortUrl, faultyChatModel } from "../testing/faulty-chat-model.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { CHATML_TOKENS, writeTokenizerFolder } from "../testing/tokenizer-fixtures.js";
import { loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import { EvalConfig, formatEvalTable } from "./config.js";
import { runEval } from "./evaluate.js";

const io = {
  log: () => {},
  saveCheckpoint: async () => err("unused"),
  loadCheckpoint: async () => err("unused"),
};
const N = 6;
/** The calculator's test questions 0..N−1 and their answers, which the faulty model "knows". */
const answers = new Map(
  Array.from({ length: N }, (_, i) => {
    const t = proceduralTask("test", i);
    return [t.question, t.answer] as const;
  }),
);
// Concurrency 1 makes the order of model calls, and so which calls fail, fixed.
const base = { env: "local:calculator", split: "test", n: N, concurrency: 1, retries: 0, maxSteps: 4 };
const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("eval against a model server that fails on purpose", () => {
  it("counts every task, a failed episode as a failure, exactly as the hub's aggregate", async () => {
    const model = await faultyChatModel(answers, { failEvery: 3 });
    servers.push(model);
    const result = await runEval({ ...base, policy: `openai:${model.url}`, maxNewTokens: 17 }, io);
    if (!result.ok) throw new Error(result.error);
    // A solved episode is 2 calls (tool call, answer). Calls 3, 6, 9 answer 400, one at a time:
    // ep0 calls 1–2 solved, ep1 call 3 fails, ep2 calls 4–5, ep3 call 6 fails, ep4 7–8, ep5 9 fails.
    // Success = 3 solved / 6 tasks = 0.5 (the old table said 3/3 = 1.000); mean reward likewise
    // (1+0+1+0+1+0)/6 = 0.5, a failed task at the calculator's minimum reward 0.
    expect(model.seen).toHaveLength(9);
    expect(result.value).toMatchObject({ episodes: 6, infraFailures: 3, success: 0.5, reward: 0.5 });
    // The hub's aggregate over the same outcomes: the three failed tasks have no verified episode.
    const hub = aggregate(
      [0, 1, 2, 3, 4, 5].map((i) => (i % 2 === 0 ? { return: 1, finalReward: 1, steps: 2 } : null)),
      0,
    );
    expect(result.value.success).toBe(hub.successRate);
    expect(result.value.reward).toBe(hub.meanReturn);
    expect(result.value.failures).toEqual([
      expect.stringMatching(
        /^policy HTTP 400 ×3, first: policy: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1: .*bad request number 3/,
      ),
    ]);
    const table = formatEvalTable(result.value);
    expect(table).toMatch(/success rate\s+0\.500/);
    expect(table).toContain("policy HTTP 400 ×3");
    // --max-new-tokens is the request's max_tokens.
    expect(model.seen.every((r) => r.max_tokens === 17)).toBe(true);
  });

  it("names a closed port as connection refused on every episode", async () => {
    const url = await closedPortUrl();
    const result = await runEval({ ...base, n: 2, policy: `openai:${url}` }, io);
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ episodes: 2, infraFailures: 2, success: 0 });
    expect(result.value.failures).toEqual([
      `policy connection refused ×2, first: policy: connection refused at ${url}`,
    ]);
  });

  it("names a server that never answers as a timeout after the deadline", async () => {
    const model = await faultyChatModel(answers, { hang: true });
    servers.push(model);
    const result = await runEval({ ...base, n: 1, timeoutMs: 200, policy: `openai:${model.url}` }, io);
    if (!result.ok) throw new Error(result.error);
    expect(result.value.failures).toEqual([
      `policy timeout ×1, first: policy: no answer from ${model.url} within 200 ms`,
    ]);
  });

  it("counts a chat template's refusal (template_error from edgegym serve) as an infrastructure failure, by name", async () => {
    // Gemma's template refuses a system turn this way; the calculator's first message is one.
    const dir = await mkdtemp(join(tmpdir(), "edgegym-eval-template-"));
    await writeTokenizerFolder(dir, CHATML_TOKENS, {
      chat_template:
        "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}",
      eos_token: "<|im_end|>",
    });
    const tokenizer = await loadHfTokenizer(dir);
    if (!tokenizer.ok) throw new Error(tokenizer.error);
    const tok = tokenizer.value;
    const model = new ScriptedModel({ contextLength: 2048 }, () => [
      ...tok.encode("#### 1"),
      tok.special.endOfTurn,
    ]);
    const app = createServeApp({
      modelId: "gemma-like",
      tokenizer: tok,
      contextLength: 2048,
      batcher: new Batcher(model, tok.stopIds),
      host: "127.0.0.1",
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    servers.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    servers.push({ close: () => rm(dir, { recursive: true, force: true }) });
    await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const result = await runEval({ ...base, n: 2, policy: `openai:${url}` }, io);
    if (!result.ok) throw new Error(result.error);
    expect(model.calls).toHaveLength(0);
    expect(result.value).toMatchObject({ episodes: 2, infraFailures: 2, success: 0 });
    expect(result.value.failures).toEqual([
      expect.stringMatching(
        /^policy HTTP 400 template_error ×2, first: policy: HTTP 400 from .*System role not supported/,
      ),
    ]);
  });

  it("refuses an openai: policy without http:// up front", async () => {
    const bad = parseConfig(EvalConfig, { env: "local:calculator", policy: "openai:localhost:9504" });
    expect(bad).toMatchObject({
      ok: false,
      error: expect.stringContaining('needs an http(s) URL, got "localhost:9504"'),
    });
    if (!bad.ok) expect(bad.error).toContain("openai:http://localhost:9504");
    const run = await runEval({ env: "local:calculator", policy: "openai:localhost:9504" }, io);
    expect(run.ok).toBe(false);
  });
});

describe("eval's tool format, progress and output folder", () => {
  it("openai: passes the tools and shows the env's <tool_call> examples as calls, never both formats", async () => {
    const model = await faultyChatModel(answers);
    servers.push(model);
    const out = await mkdtemp(join(tmpdir(), "edgegym-eval-"));
    const ticks: [number, number][] = [];
    const result = await runEval(
      { ...base, n: 3, policy: `openai:${model.url}`, out },
      io,
      process.env,
      (done, total) => ticks.push([done, total]),
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ episodes: 3, success: 1, infraFailures: 0 });
    const first = model.seen[0];
    expect(first?.tools?.map((t) => t.function.name)).toEqual(["calculator"]);
    expect(JSON.stringify(first?.messages)).not.toContain("<tool_call>");
    expect(first?.messages[0]?.content).toContain('calculator({"expression":"2*(3+4)"})');
    expect(ticks).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const saved = JSON.parse(await readFile(join(out, "results.json"), "utf8"));
    expect(saved.summary).toMatchObject({ episodes: 3, success: 1 });
    const lines = (await readFile(join(out, "trajectories.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).task.index)).toEqual([0, 1, 2]);
  });

  it("hermes: no OpenAI tools; the model writes <tool_call> text as the env's prompt asks", async () => {
    const model = await faultyChatModel(answers);
    servers.push(model);
    const result = await runEval({ ...base, n: 2, toolFormat: "hermes", policy: `openai:${model.url}` }, io);
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ episodes: 2, success: 1, toolCalls: 1 });
    expect(model.seen.every((r) => r.tools === undefined)).toBe(true);
    expect(model.seen[0]?.messages[0]?.content).toContain("<tool_call>");
  });
});
