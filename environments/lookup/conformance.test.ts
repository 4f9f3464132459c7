import { describeConformance } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { lookup } from "./index.js";

// The expert acts with the text action `f10` (train index 0: x = 10), not a tool call, so the suite's
// style tests get the equivalent call.
const toolCall = { name: "f", arguments: { x: 10 } };

describeConformance("lookup on Node", async () => ({ ...(await serveOnNode([lookup])), toolCall }));
