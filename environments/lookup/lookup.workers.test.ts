import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describeConformance } from "../../tests/conformance/index.js";

describeConformance("lookup inside workerd (the worker entry, through SELF.fetch)", () => ({
  baseUrl: "http://edgegym.test/envs/lookup",
  fetch: (input, init) => SELF.fetch(input, init),
  secrets: { EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY, EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY },
  // The expert acts with the text action `f10` (train index 0: x = 10), not a tool call.
  toolCall: { name: "f", arguments: { x: 10 } },
}));
