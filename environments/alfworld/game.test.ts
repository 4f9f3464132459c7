import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineEnvironment, generateSecrets } from "../kit/index.js";
import { expertCommand } from "./expert.js";
import { admissible, GameState, intro, normalize, play, START, solved } from "./game.js";
import { alfworld, alfworldLevels } from "./index.js";
import { alfworldTask, type Task } from "./world.js";

/** Plays the planner from the start: its commands and the last state. */
function planned(task: Task) {
  let state = START;
  const commands: string[] = [];
  while (!solved(task, state) && commands.length < 50) {
    const c = expertCommand(task, state);
    const r = play(task, state, c);
    expect(r.valid, `${task.goal}: ${c}`).toBe(true);
    commands.push(c);
    state = r.state;
  }
  return { commands, state };
}

describe("alfworld's game", () => {
  it("opens as ALFWorld does: the welcome, the receptacles in view, the task", () => {
    const t = alfworldTask("train", 2);
    expect(intro(t)).toBe(
      "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a coffeetable 1, a drawer 3, a drawer 2, a drawer 1, a garbagecan 1, a shelf 2, a shelf 1, a sidetable 1, and a sofa 1.\n\nYour task is to: look at watch under the desklamp.",
    );
  });

  it("hides what a closed receptacle holds until it is opened, and takes nothing from it before", () => {
    const t = alfworldTask("train", 2);
    const at = play(t, START, "go to drawer 3");
    expect(at.text).toBe("You arrive at drawer 3. The drawer 3 is closed.");
    expect(play(t, at.state, "take watch 1 from drawer 3")).toMatchObject({
      text: "Nothing happens.",
      valid: false,
    });
    const opened = play(t, at.state, "open drawer 3");
    expect(opened.text).toBe("You open the drawer 3. The drawer 3 is open. In it, you see a watch 1.");
    expect(play(t, opened.state, "take watch 1 from drawer 3").valid).toBe(true);
    // Somewhere else, or a thing that is not there: nothing happens, and the state is unchanged.
    expect(play(t, START, "take watch 1 from drawer 3")).toEqual({
      text: "Nothing happens.",
      state: START,
      valid: false,
    });
    expect(play(t, START, "fly to the moon").valid).toBe(false);
  });

  it("reads put … in, on and in/on alike, and a command in any case or spacing", () => {
    expect(normalize("Put  mug 1 on countertop 1.")).toBe("put mug 1 in/on countertop 1");
    expect(normalize("put mug 1 in countertop 1")).toBe("put mug 1 in/on countertop 1");
    expect(normalize(" GO TO fridge 1 ")).toBe("go to fridge 1");
  });

  it("lists as admissible exactly the commands that do something (valid), on the planner's path too", () => {
    for (let i = 0; i < 30; i++) {
      const t = alfworldTask("train", i);
      let state = START;
      for (const c of planned(t).commands) {
        const listed = admissible(t, state);
        expect(listed).toContain(c);
        for (const a of listed) expect(play(t, state, a).valid, a).toBe(true);
        state = play(t, state, c).state;
      }
    }
  });

  it("the planner solves every one of the first 200 tasks of every split at every level, in ALFWorld's 50 steps", () => {
    for (const level of [1, 2, 3]) {
      for (const split of ["train", "test", "test_unseen"]) {
        for (let i = 0; i < 200; i++) {
          const t = alfworldTask(split, i, level);
          const { state, commands } = planned(t);
          expect(solved(t, state), `${split} ${i} l${level}`).toBe(true);
          expect(commands.length).toBeLessThanOrEqual(50);
        }
      }
    }
  });

  it("random commands, admissible or not, never throw and always leave a state of the schema", () => {
    const t = alfworldTask("train", 5);
    const commands = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom(...admissible(t, START), ...t.objects.map((o) => `take ${o.name} from ${o.at}`)),
      fc.constantFrom(...t.receptacles.map((r) => r.name)).map((r) => `open ${r}`),
    );
    fc.assert(
      fc.property(fc.array(commands, { maxLength: 40 }), (cs) => {
        let state = START;
        for (const c of cs) {
          const before = admissible(t, state).includes(normalize(c));
          const r = play(t, state, c);
          expect(r.valid).toBe(before);
          state = GameState.parse(r.state);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("the alfworld env", () => {
  it("reports valid per command, lists admissible commands by tool, ends with reward 1 when the goal holds", async () => {
    const rt = { bindings: await generateSecrets() };
    const env = alfworldLevels[0];
    if (env === undefined) throw new Error("alfworld has a level 1");
    let { session } = await env.startSession({ split: "train", index: 0 }, rt);
    const bad = await env.step({ session, action: { content: "go to the moon" } }, rt);
    expect(bad.observation.messages.at(-1)?.content).toContain("Nothing happens.");
    expect(bad.info).toMatchObject({ valid: false });
    const listed = await env.step(
      {
        session: bad.session,
        action: { content: '<tool_call>{"name":"admissible_commands","arguments":{}}</tool_call>' },
      },
      rt,
    );
    expect(listed.observation.messages.at(-1)?.content).toContain("go to ");
    session = listed.session;
    for (let i = 0; i < 48; i++) {
      const { action } = await env.expert(session, rt);
      const r = await env.step({ session, action }, rt);
      if (r.done) {
        expect(r).toMatchObject({ reward: 1, truncated: false, info: { success: true, valid: true } });
        return;
      }
      expect(r.info).toMatchObject({ valid: true });
      session = r.session;
    }
    throw new Error("the expert did not finish");
  });

  it("refuses the expert on both test splits", async () => {
    const rt = { bindings: await generateSecrets() };
    for (const split of ["test", "test_unseen"]) {
      const { session } = await alfworld.startSession({ split, index: 0 }, rt);
      await expect(alfworld.expert(session, rt)).rejects.toMatchObject({ code: "expert_forbidden" });
    }
    // With no split held out the same episode gets an action, so it is the split that refuses.
    const open = defineEnvironment({
      ...alfworld.definition,
      tasks: { ...alfworld.definition.tasks, heldOut: [] },
    });
    const { session } = await open.startSession({ split: "test_unseen", index: 0 }, rt);
    expect((await open.expert(session, rt)).action.content).toMatch(/^go to /);
  });
});
