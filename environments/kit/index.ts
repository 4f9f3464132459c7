export { formatHermesCall } from "../../shared/tool-calls.js";
export { type AppOptions, createEnvironmentApp, MAX_BODY_BYTES } from "./app.js";
export { DEFAULT_LIMITS, defineEnvironment, type Environment } from "./define-environment.js";
export { deriveSessionKey, type KeyRing, resolveKeys, SESSION_KEY_VAR, SIGNING_KEY_VAR } from "./keys.js";
export { generateSecrets } from "./secrets.js";
export type * from "./types.js";
