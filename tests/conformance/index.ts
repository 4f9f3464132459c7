export { type ConformanceTarget, expectProblem, protocolClient } from "./client.js";
export { describeConformance } from "./conformance.js";
export { faultyEnvironment } from "./faulty-env.js";
export { describeKitFaults } from "./kit-faults.js";
