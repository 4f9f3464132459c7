import { describeConformance } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { alfworld, alfworldLevels } from "./index.js";

/** The expert sends plain-text commands (the kit turns them into env_step calls), so the suite's sample call is given. */
const SAMPLE_CALL = { name: "env_step", arguments: { command: "look" } };

describeConformance("alfworld on Node", async () => ({
  ...(await serveOnNode([alfworld])),
  toolCall: SAMPLE_CALL,
}));
describeConformance("alfworld-l1 (level 1) on Node", async () => ({
  ...(await serveOnNode(alfworldLevels.slice(0, 1))),
  toolCall: SAMPLE_CALL,
}));
