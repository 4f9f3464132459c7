/** Names accepted by `--backend`, in the order `initBackend` tries them when none is given. */
export const BACKENDS = ["tensorflow-gpu", "webgpu", "tensorflow", "wasm", "cpu"] as const;
export type BackendName = (typeof BACKENDS)[number];
