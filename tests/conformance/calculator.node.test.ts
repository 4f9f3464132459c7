import { calculator } from "../../environments/calculator/index.js";
import { describeConformance, describeKitFaults, faultyEnvironment } from "./index.js";
import { serveOnNode } from "./node-target.js";

describeConformance("calculator on Node", () => serveOnNode([calculator]));
describeKitFaults("faulty env on Node", () => serveOnNode([faultyEnvironment], { maxInFlight: 2 }));
