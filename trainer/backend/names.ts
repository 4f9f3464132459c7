/** Names accepted by `--backend`, in the order `initBackend` tries them when none is given (webgpu only by name). */
export const BACKENDS = ["tensorflow-gpu", "tensorflow", "wasm", "cpu", "webgpu"] as const;
export type BackendName = (typeof BACKENDS)[number];
