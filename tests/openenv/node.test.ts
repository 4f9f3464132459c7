import { builtinEnvironments } from "../../environments/builtin.js";
import { calculator } from "../../environments/calculator/index.js";
import { serveOnNode } from "../conformance/node-target.js";
import { DATASET_ENVS, describeOpenEnv, describeOpenEnvEpisodes } from "./index.js";
import { nodeSocket } from "./node-socket.js";

describeOpenEnv("calculator on Node (@hono/node-server and ws)", async () => ({
  ...(await serveOnNode([calculator])),
  connect: (url) => nodeSocket(url),
}));

describeOpenEnvEpisodes("the Node host", builtinEnvironments, DATASET_ENVS, async () => {
  const served = await serveOnNode(builtinEnvironments);
  const origin = served.baseUrl.replace(/\/envs\/.*$/, "");
  return {
    origin,
    target: (baseUrl) => ({ baseUrl, connect: (url) => nodeSocket(url) }),
    close: async () => {
      await served.close?.();
    },
  };
});
