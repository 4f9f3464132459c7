import { z } from "zod";
import { atlas, type Task } from "./tasks.js";

/** What the episode carries between steps (sealed into the session token, never stored). */
export const State = z.object({ lookups: z.number().int() });
export type State = z.infer<typeof State>;

/**
 * The tool: a zod schema for its arguments (the manifest shows it as JSON Schema and the kit checks
 * every call against it) and a run function returning text, or text plus a new state.
 */
export const tools = {
  atlas: {
    description: "Look up a country's capital city.",
    parameters: z.object({ country: z.string().describe("the country's English name") }),
    run: ({ country }: { country: string }, { state }: { task: Task; state: State }) => {
      const capital = atlas.get(country.trim().toLowerCase());
      const next = { lookups: state.lookups + 1 };
      if (capital === undefined) return { content: `no entry for ${country}`, error: true, state: next };
      return { content: `The capital of ${country} is ${capital}.`, state: next };
    },
  },
};
