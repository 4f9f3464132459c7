/**
 * The OpenEnv conformance suite, written from OpenEnv's published types and server behaviour
 * (huggingface/OpenEnv `openenv.core.env_server`): what its `GenericEnvClient` and `MCPToolClient`
 * send and expect. `describeOpenEnv` runs it on one env; `describeOpenEnvEpisodes` plays one
 * episode over `/ws` on each of several envs of one host.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Environment } from "../../environments/kit/index.js";
import { httpTests } from "./http-suite.js";
import { socketTests } from "./socket-suite.js";
import { ask, errorCode, type OpenEnvTarget, playToEnd, socketUrl } from "./target.js";

export type { OpenEnvSocket, OpenEnvTarget } from "./target.js";

/** The built-in envs that serve tasks only from an imported dataset (the suites import none). */
export const DATASET_ENVS: ReadonlySet<string> = new Set([
  "calculator-gsm8k",
  "code-gsm8k",
  "webshop-real",
  "webshop-real-human",
  "search-hotpotqa",
  "search-musique",
  "alfworld-imported",
]);

export function describeOpenEnv(name: string, setup: () => Promise<OpenEnvTarget> | OpenEnvTarget): void {
  describe(`OpenEnv conformance: ${name}`, () => {
    const suite = {} as { target: OpenEnvTarget };
    beforeAll(async () => {
      suite.target = await setup();
      return async () => {
        await suite.target.close?.();
      };
    });
    socketTests(suite);
    httpTests(suite);
  });
}

/**
 * One expert episode over `/ws` on every env in `envs` served under `<origin>/envs/<name>`; an env in
 * `unimported` has no dataset on this host and must refuse `reset` with `VALIDATION_ERROR`
 * (edgegym's `dataset_not_imported`).
 */
export function describeOpenEnvEpisodes(
  name: string,
  envs: readonly Environment[],
  unimported: ReadonlySet<string>,
  setup: () => Promise<{
    origin: string;
    target: (baseUrl: string) => OpenEnvTarget;
    close?: () => Promise<void>;
  }>,
): void {
  describe(`OpenEnv episodes on every env: ${name}`, () => {
    const host = {} as Awaited<ReturnType<typeof setup>>;
    beforeAll(async () => {
      Object.assign(host, await setup());
      return async () => {
        await host.close?.();
      };
    });
    for (const env of envs) {
      it(`${env.name}: ${unimported.has(env.name) ? "reset refused without its dataset" : "an expert episode to its receipt"}`, async () => {
        const target = host.target(`${host.origin}/envs/${env.name}`);
        const ws = await target.connect(socketUrl(target.baseUrl));
        if (unimported.has(env.name)) {
          const reply = await ask(ws, { type: "reset", data: { split: "train", index: 0 } });
          expect(errorCode(reply)).toBe("VALIDATION_ERROR");
          expect((reply.data.problem as { code: string }).code).toBe("dataset_not_imported");
        } else {
          const { result, state } = await playToEnd(target, ws);
          expect(result.done).toBe(true);
          expect(typeof result.observation.metadata.receipt).toBe("string");
          expect(state.env).toBe(env.name);
        }
        ws.close();
      });
    }
  });
}
