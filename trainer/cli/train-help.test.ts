import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { METHODS } from "../algos/registry.js";
import { registerTrain } from "./train.js";

describe("edgegym train --help", () => {
  it("lists every method of the registry, what it is, and that gae is read as ppo", () => {
    const program = new Command("edgegym");
    registerTrain(program);
    const train = program.commands.find((c) => c.name() === "train");
    const help = train?.helpInformation() ?? "";
    // Commander wraps long descriptions: compare with the line breaks and indents taken out.
    const flat = help.replace(/\s+/g, " ");
    for (const [name, m] of Object.entries(METHODS)) {
      expect(flat).toContain(`${name} (${m.summary})`);
      expect(flat).toContain(m.label);
    }
    expect(flat).toContain("gae (read as ppo)");
  });
});
