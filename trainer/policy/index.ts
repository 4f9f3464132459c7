export { initBackend, isBackendName } from "../backend/backend.js";
export { DEFAULT_MODEL_CONFIG, resolveModelConfig } from "../model/config.js";
export { createModel } from "../model/create-model.js";
export { BYTE_VOCAB_SIZE, ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
export * from "./types.js";
export { type AdamConfig, createAdam, optimizerStep, type StepStats } from "./optimizer-step.js";
