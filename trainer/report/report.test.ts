import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reportSpec, writeReport } from "./report.js";

describe("run report", () => {
  it("puts reward and success per iteration in long form", () => {
    const spec = reportSpec(
      [
        { iteration: 1, "reward/mean": 0.25, "reward/success": 0.2 },
        { iteration: 2, "reward/mean": 0.5, "reward/success": 0.4, "losses/policy": 1 },
      ],
      "t",
    );
    expect((spec as { data: { values: unknown[] } }).data.values).toEqual([
      { iteration: 1, metric: "reward/mean", value: 0.25 },
      { iteration: 1, metric: "reward/success", value: 0.2 },
      { iteration: 2, metric: "reward/mean", value: 0.5 },
      { iteration: 2, metric: "reward/success", value: 0.4 },
    ]);
  });

  it("writes report.svg and a PNG from metrics.jsonl", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-report-"));
    const lines = [1, 2, 3].map((i) =>
      JSON.stringify({ iteration: i, "reward/mean": i / 4, "reward/success": i / 5 }),
    );
    await writeFile(join(dir, "metrics.jsonl"), `${lines.join("\n")}\n`);
    await writeReport(dir, "calculator grpo");
    const svg = await readFile(join(dir, "report.svg"), "utf8");
    expect(svg).toContain("<svg");
    expect(svg).toContain("reward/success");
    const png = await readFile(join(dir, "report.png"));
    expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
  });
});
