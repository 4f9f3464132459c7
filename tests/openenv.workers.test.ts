import { SELF } from "cloudflare:test";
import { builtinEnvironments } from "../environments/builtin.js";
import { DATASET_ENVS, describeOpenEnv, describeOpenEnvEpisodes } from "./openenv/index.js";
import type { FetchLike } from "./openenv/target.js";
import { workerdSocket } from "./openenv/workerd-socket.js";

const send: FetchLike = (input, init) => SELF.fetch(input, init);

describeOpenEnv("calculator inside workerd (the worker entry, through SELF.fetch)", () => ({
  baseUrl: "http://edgegym.test/envs/calculator",
  fetch: send,
  connect: (url) => workerdSocket(send, url),
}));

describeOpenEnvEpisodes("the workerd host", builtinEnvironments, DATASET_ENVS, async () => ({
  origin: "http://edgegym.test",
  target: (baseUrl) => ({ baseUrl, fetch: send, connect: (url) => workerdSocket(send, url) }),
}));
