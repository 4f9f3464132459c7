import { describeConformance } from "edgegym/conformance";
import { serveOnNode } from "edgegym/conformance/node";
import { myEnv } from "./index.js";

// The edgegym/v1 conformance suite over real HTTP on Node; `edgegym push` runs it against the bundle too.
describeConformance("my-env on Node", () => serveOnNode([myEnv]));
