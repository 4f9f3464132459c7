import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createEnvironmentApp } from "../environments/kit/index.js";
import { describeConformance, describeKitFaults, faultyEnvironment } from "./conformance/index.js";

const secrets = {
  EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY,
  EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY,
};

describeConformance("calculator inside workerd (the worker entry, through SELF.fetch)", () => ({
  baseUrl: "http://edgegym.test/envs/calculator",
  fetch: (input, init) => SELF.fetch(input, init),
  secrets,
}));

const faulty = createEnvironmentApp(faultyEnvironment, { maxInFlight: 2 });
describeKitFaults("faulty env inside workerd", () => ({
  baseUrl: "http://edgegym.test",
  fetch: async (input, init) => faulty.fetch(new Request(input, init), secrets),
  secrets,
}));
