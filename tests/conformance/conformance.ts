/**
 * The edgegym/v1 conformance suite. Any environment runs through it in three lines:
 *
 *   import { describeConformance } from "../../tests/conformance/index.js";
 *   import { serveOnNode } from "../../tests/conformance/node-target.js";
 *   describeConformance("search on Node", () => serveOnNode([search]));
 *
 * (inside workerd: `describeConformance("search in workerd", () => ({ baseUrl:
 * "http://x/envs/search", fetch: (u, i) => SELF.fetch(u, i), secrets: env }))`.)
 * An environment that needs a database gets it with `serveOnNode([env], { bindings: { EDGEGYM_DB: db } })`.
 * The target's expert must solve `solvable` (default train/0), the env needs `train` and `test`
 * splits, and the secrets must be the deployment's, because expired and foreign tokens are forged
 * with them; `toolCall` overrides the sample call taken from the expert's first action. Kit-level faults (step timeout, internal errors, rate limiting) need a test-only
 * environment and live in `describeKitFaults`.
 */
import { beforeAll, describe } from "vitest";
import { type ConformanceTarget, protocolClient, type Suite } from "./client.js";
import { errorTests } from "./errors-suite.js";
import { hostileTests } from "./hostile-suite.js";
import { sessionTests } from "./sessions-suite.js";
import { stepTests } from "./steps-suite.js";

export type { ConformanceTarget } from "./client.js";

export function describeConformance(
  name: string,
  setup: () => Promise<ConformanceTarget> | ConformanceTarget,
): void {
  describe(`edgegym/v1 conformance: ${name}`, () => {
    const suite = {} as Suite;
    beforeAll(async () => {
      suite.target = await setup();
      suite.client = protocolClient(suite.target);
      suite.manifest = await suite.client.manifest();
      return async () => {
        await suite.target.close?.();
      };
    });
    sessionTests(suite);
    stepTests(suite);
    errorTests(suite);
    hostileTests(suite);
  });
}
