/**
 * The device check's parity half (trainer/backend/device-check.sh runs it from its bundle): the adapter
 * Dawn found and the webgpu-vs-cpu parity cases, as one JSON line; exit 1 when there is no adapter or
 * a case is out of tolerance.
 */
import { startWebGpu } from "../backend/webgpu.js";
import { PARITY_CASES, type ParityResult } from "./webgpu-parity.js";

const gpu = await startWebGpu({ allowSoftware: true });
if (!gpu.ok) {
  console.log(JSON.stringify({ ok: false, error: gpu.error }));
  process.exit(1);
}
const parity: Record<string, ParityResult> = {};
for (const [name, check] of Object.entries(PARITY_CASES)) {
  try {
    parity[name] = await check();
  } catch (e) {
    parity[name] = { figures: {}, failures: [e instanceof Error ? e.message : String(e)] };
  }
}
const ok = Object.values(parity).every((r) => r.failures.length === 0);
console.log(JSON.stringify({ ok, adapter: gpu.value, parity }));
process.exit(ok ? 0 : 1);
