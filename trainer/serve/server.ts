import type { AddressInfo } from "node:net";
import { basename, resolve } from "node:path";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { err, ok, type Result } from "../../shared/result.js";
import type { BackendName } from "../backend/names.js";
import { startBackend } from "../backend/start-backend.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import type { RunIO } from "../run/io.js";
import { createServeApp } from "./app.js";
import { Batcher } from "./batcher.js";

export type ServeConfig = {
  checkpoint: string;
  port: number;
  host: string;
  backend?: BackendName;
  /** The id clients see; default the checkpoint folder's name. */
  modelName?: string;
  /** Most rows (choices of all requests) in one generate call. */
  maxBatch: number;
};

export type Serving = { url: string; modelId: string; close: () => Promise<void> };

/** Loads the checkpoint on the chosen backend and serves it over HTTP until `close`. */
export async function startServe(config: ServeConfig, io: RunIO): Promise<Result<Serving>> {
  const backend = await startBackend(config.backend, io);
  if (!backend.ok) return backend;
  const policy = await loadPolicy(config.checkpoint, {}, 0, io);
  if (!policy.ok) return policy;
  const { model, tokenizer } = policy.value;
  const modelId = config.modelName ?? basename(resolve(config.checkpoint));
  const batcher = new Batcher(model, tokenizer.stopIds, config.maxBatch, undefined, (rows, requests) => {
    if (requests > 1) io.log(`batched ${requests} requests into one generate call of ${rows} rows`);
  });
  const app = createServeApp({
    modelId,
    tokenizer,
    contextLength: model.config.contextLength,
    batcher,
    host: config.host,
  });
  const server = await listenOn(app, config.port, config.host);
  if (!server.ok) {
    model.dispose();
    return server;
  }
  io.log(
    `serving ${modelId} (context ${model.config.contextLength} tokens, ${tokenizer.kind} tokenizer) at ${server.value.url}/v1`,
  );
  return ok({
    url: server.value.url,
    modelId,
    close: async () => {
      await server.value.close();
      model.dispose();
    },
  });
}

/** Listens on `host:port` (0: any free port); a port in use is an error, not a crash. */
function listenOn(app: Hono, port: number, host: string) {
  return new Promise<Result<{ url: string; close: () => Promise<void> }>>((done) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
      const url = `http://${host}:${(info as AddressInfo).port}`;
      const close = () =>
        new Promise<void>((closed) => {
          if ("closeAllConnections" in server) server.closeAllConnections();
          server.close(() => closed());
        });
      done(ok({ url, close }));
    });
    server.once("error", (e) => done(err(`cannot listen on ${host}:${port}: ${e.message}`)));
  });
}
