import { describe, expect, it } from "vitest";
import { ALFWORLD_LEVELS, alfworldTask, FAMILIES, kindOf, LEVELS, placementOf, type Task } from "./world.js";

const first = (split: string, n: number, level: number) =>
  Array.from({ length: n }, (_, i) => alfworldTask(split, i, level));
const layoutOf = (t: Task) => `${t.room}:${t.receptacles.map((r) => r.name).join(",")}`;

describe("alfworld's generated households", () => {
  it("are the same task for the same split, index and level, and differ across indexes", () => {
    expect(alfworldTask("train", 7, 2)).toEqual(alfworldTask("train", 7, 2));
    expect(new Set(first("train", 50, 3).map((t) => JSON.stringify(t))).size).toBe(50);
  });

  it("seen test shares train's layouts, never a train placement; unseen test shares no layout with train", () => {
    for (let level = 1; level <= ALFWORLD_LEVELS; level++) {
      const train = first("train", 3000, level);
      const trainLayouts = new Set(train.map(layoutOf));
      const trainPlacements = new Set(train.map(placementOf));
      const seen = first("test", 300, level);
      const unseen = first("test_unseen", 300, level);
      expect(
        seen.filter((t) => !trainLayouts.has(layoutOf(t))),
        `level ${level}`,
      ).toEqual([]);
      expect(
        seen.filter((t) => trainPlacements.has(placementOf(t))),
        `level ${level}`,
      ).toEqual([]);
      expect(
        unseen.filter((t) => trainLayouts.has(layoutOf(t))),
        `level ${level}`,
      ).toEqual([]);
    }
  });

  it("make level 1 a room of 4 receptacles with pick & place only, and ask all six families at the top", () => {
    for (const t of first("train", 300, 1)) {
      expect(t.receptacles.length).toBeLessThanOrEqual(LEVELS[1]?.receptacles ?? 0);
      expect(t.family).toBe("pick_and_place_simple");
    }
    expect(new Set(first("train", 300, 2).map((t) => t.family)).size).toBe(4);
    expect(new Set(first("train", 300, 3).map((t) => t.family))).toEqual(new Set(FAMILIES));
    const top = first("train", 300, 3).map((t) => t.receptacles.length);
    expect(Math.max(...top)).toBeGreaterThan(LEVELS[2]?.receptacles ?? 0);
  });

  it("place every object where its kind may lie, and never start with the goal done", () => {
    for (const t of first("train", 500, 3)) {
      const names = new Set(t.receptacles.map((r) => r.name));
      for (const o of t.objects) expect(names.has(o.at), `${o.name} at ${o.at}`).toBe(true);
      const goalKind = t.objects.filter((o) => kindOf(o.name) === t.object);
      expect(goalKind.length).toBeGreaterThanOrEqual(t.family === "pick_two_obj_and_place" ? 2 : 1);
      if (t.receptacle !== undefined) {
        expect(goalKind.filter((o) => kindOf(o.at) === t.receptacle)).toEqual([]);
        expect(t.receptacles.some((r) => kindOf(r.name) === t.receptacle)).toBe(true);
      }
      expect(t.goal.endsWith(".")).toBe(true);
      expect(t.goal).toContain(t.object);
    }
  });
});
