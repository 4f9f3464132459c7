import { access } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { BACKENDS } from "../backend/names.js";
import { cliIO, fail, UserError } from "./run-io.js";

const Options = z.strictObject({
  port: z.coerce.number().int().min(0).max(65_535),
  host: z.string().min(1),
  backend: z.enum(BACKENDS).optional(),
  modelName: z.string().min(1).optional(),
  maxBatch: z.coerce.number().int().positive(),
});

/**
 * `edgegym serve <checkpoint>`: the checkpoint as an OpenAI-compatible chat server
 * (trainer/serve/app.ts) until Ctrl-C. A folder that is not a checkpoint, or a bad flag, is the
 * user's mistake (one line, exit 2) and is found before tfjs loads.
 */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("serve a checkpoint as an OpenAI-compatible API (/v1/models, /v1/chat/completions)")
    .argument("<checkpoint>", "checkpoint folder (config.json, model.safetensors, tokenizer files)")
    .option("--port <n>", "port (0 picks a free one)", "8000")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--backend <name>", "tensorflow-gpu | tensorflow | wasm | cpu")
    .option("--model-name <id>", "model id clients see (default: the folder's name)")
    .option("--max-batch <n>", "most rows (choices of all waiting requests) in one generate call", "32")
    .action(async (checkpoint: string, opts: Record<string, unknown>) => {
      const parsed = Options.safeParse(opts);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new UserError(`bad option --${String(issue?.path[0] ?? "?")}: ${issue?.message ?? "invalid"}`);
      }
      const hasConfig = await access(join(checkpoint, "config.json")).then(
        () => true,
        () => false,
      );
      if (!hasConfig) throw new UserError(`${checkpoint} is not a checkpoint folder (no config.json)`);
      const { startServe } = await import("../serve/server.js");
      const { backend, modelName, ...rest } = parsed.data;
      const serving = await startServe(
        { checkpoint, ...rest, ...(backend ? { backend } : {}), ...(modelName ? { modelName } : {}) },
        cliIO,
      );
      if (!serving.ok) return fail(serving.error);
      const stop = () => {
        void serving.value.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
