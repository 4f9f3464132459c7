import { formatHermesCall } from "edgegym/kit";
import type { Task } from "./tasks.js";
import type { State } from "./tools.js";

/**
 * The scripted expert (`POST /v1/expert`, SFT data and the conformance suite): look the country up
 * once, then answer. It sees the same state the tools do.
 */
export const expert = ({ task, state }: { task: Task; state: State }) =>
  state.lookups === 0
    ? { content: formatHermesCall("atlas", { country: task.country }) }
    : { content: `#### ${task.capital}` };
