import { err, ok, type Result } from "../../shared/result.js";
import type { RunIO } from "../run/io.js";
import { initBackend } from "./backend.js";
import type { BackendName } from "./names.js";

/** Picks the backend and logs which one runs (and why faster ones were passed over). */
export async function startBackend(name: BackendName | undefined, io: RunIO): Promise<Result<string>> {
  const backend = await initBackend(name);
  if (!backend.ok) return err(`no tfjs backend: ${backend.error}`);
  const skipped = backend.value.skipped.length > 0 ? ` (skipped: ${backend.value.skipped.join("; ")})` : "";
  io.log(`backend: ${backend.value.name}${skipped}`);
  return ok(backend.value.name);
}
