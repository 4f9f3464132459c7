import { z } from "zod";
import { defineEnvironment } from "../../environments/kit/index.js";

/** The text an internal error carries; it must never reach a client. */
export const INTERNAL_SECRET = "secret-internal-detail-4242";

/**
 * A test-only environment that misbehaves on purpose: `hang` never returns, `boom` throws, and the
 * final answer `crash` throws from the scorer. The kit must turn each into the right response.
 */
export const faultyEnvironment = defineEnvironment<{ n: number }, null, null>({
  name: "faulty",
  version: "0.0.1",
  description: "Test-only: a tool that hangs, a tool that throws and a scorer that crashes.",
  tools: {
    hang: {
      description: "Never returns.",
      parameters: z.object({}),
      run: () => new Promise<string>(() => {}),
    },
    boom: {
      description: "Throws.",
      parameters: z.object({}),
      run: () => {
        throw new Error("the boom tool exploded");
      },
    },
  },
  tasks: {
    id: "faulty/1",
    splits: ["train", "test"],
    count: () => 4,
    get: (_split, index) => ({ n: index }),
  },
  limits: { maxSteps: 3, stepTimeoutMs: 300 },
  reward: { min: 0, max: 1 },
  config: null,
  initialState: () => null,
  firstObservation: ({ task }) => [
    { role: "system", content: "Test-only environment." },
    { role: "user", content: `Task ${task.n}` },
  ],
  finish: (answer) => {
    if (answer === "crash") throw new Error(INTERNAL_SECRET);
    return { reward: 1, components: { outcome: 1 } };
  },
  expert: () => ({ content: "done" }),
});
