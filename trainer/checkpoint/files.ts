import { readFile, rename, writeFile } from "node:fs/promises";
import { err, ok, type Result } from "../../shared/result.js";
import { decodeSafetensors, type StoredTensor } from "./safetensors.js";

/** Writes via a temporary name so a crash never leaves a half-written file under the real name. */
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await writeFile(`${path}.partial`, data);
  await rename(`${path}.partial`, path);
}

export const json = (value: unknown) => JSON.stringify(value, null, 2);

export async function readJson(path: string): Promise<Result<Record<string, unknown>>> {
  try {
    return ok(JSON.parse(await readFile(path, "utf8")));
  } catch (e) {
    return err(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function readSafetensors(path: string): Promise<Result<Map<string, StoredTensor>>> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (e) {
    return err(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const decoded = decodeSafetensors(bytes);
  return decoded.ok ? ok(decoded.value.tensors) : err(`${path}: ${decoded.error}`);
}
