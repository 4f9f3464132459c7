import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment, generateSecrets } from "./index.js";

/** A notebook env that keeps only a running summary: each tool step replaces the context. */
const notebook = defineEnvironment<{ topic: string }, { notes: string[] }, null>({
  name: "notebook",
  version: "0.1.0",
  description: "Test-only: context replaced by a summary after each note.",
  tools: {
    note: {
      description: "Write a note.",
      parameters: z.object({ text: z.string() }),
      run: ({ text }, { state }) => ({ content: `noted ${text}`, state: { notes: [...state.notes, text] } }),
    },
  },
  tasks: { id: "notebook/1", splits: ["train", "test"], count: () => 1, get: () => ({ topic: "tides" }) },
  reward: { min: 0, max: 1 },
  config: null,
  initialState: () => ({ notes: [] }),
  firstObservation: ({ task }) => [
    { role: "system", content: "Take notes." },
    { role: "user", content: task.topic },
  ],
  replaceContext: (appended, { task, state, step }) =>
    step < 2
      ? undefined
      : [
          { role: "system", content: "Take notes." },
          { role: "user", content: `${task.topic}; notes so far: ${state.notes.join(", ")}` },
          ...appended,
        ],
  finish: () => ({ reward: 1, components: { outcome: 1 } }),
  expert: () => ({ content: "done" }),
});

describe("replaceContext (mode: replace)", () => {
  it("appends until the hook returns a context, then replaces it with state seen after the step", async () => {
    const runtime = { bindings: await generateSecrets() };
    const call = (text: string) => ({
      tool_calls: [{ id: "c", function: { name: "note", arguments: { text } } }],
    });
    const { session } = await notebook.startSession({ split: "train", index: 0 }, runtime);
    const first = await notebook.step({ session, action: call("a") }, runtime);
    expect(first.observation).toEqual({
      mode: "append",
      messages: [{ role: "tool", tool_call_id: "c", name: "note", content: "noted a" }],
    });
    const second = await notebook.step({ session: first.session, action: call("b") }, runtime);
    expect(second.observation).toEqual({
      mode: "replace",
      messages: [
        { role: "system", content: "Take notes." },
        { role: "user", content: "tides; notes so far: a, b" },
        { role: "tool", tool_call_id: "c", name: "note", content: "noted b" },
      ],
    });
  });
});
