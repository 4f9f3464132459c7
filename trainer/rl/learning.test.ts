import { describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { DEFAULT_PROBE, learningProbe } from "./learning.js";

describe("learning", () => {
  it("SFT then GRPO beats SFT alone by a clear margin, and so does StepPO with a value head", async () => {
    const backend = await initBackend("wasm");
    expect(backend.ok).toBe(true);
    // Seeded end to end, on the built-in `lookup` env. The probe's RL settings (100 iterations,
    // negative advantages weighted 0.25) were chosen on train tasks 9000..9099, never on test: there
    // SFT 0.26 → GRPO 0.44, StepPO 0.42, flat from 100 to 200 iterations; with 60 iterations and
    // weight 1, GRPO swung 0.35 → 0.28 → 0.39 as it went. Measured on test at 9456330:
    // SFT 0.28, GRPO 0.42, StepPO 0.40 (greedy, all 100 test tasks). Float-level changes to the
    // kernels move each rate by a few tasks (the same probe gave 0.24 / 0.41 / 0.42 at c2e3ee0), so
    // the bar is 10 more tasks solved: it fails a trainer whose RL does not learn, not one whose sums
    // round differently.
    const success = await learningProbe(DEFAULT_PROBE, (p) => console.log(JSON.stringify(p)));
    expect(success.grpo).toBeGreaterThanOrEqual((success.sft ?? 1) + 0.1);
    expect(success.steppo).toBeGreaterThanOrEqual((success.sft ?? 1) + 0.1);
    // It took 250 s inside a full `npm test` on a loaded two-core machine, past the old 180 s limit:
    // the limit only catches a hang; the seeded success rates above decide the result, not time.
  }, 900_000);
});
