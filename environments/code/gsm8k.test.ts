import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, protocolClient } from "../../tests/conformance/index.js";
import { gsm8kPrograms } from "../../tests/data-checks/gsm8k.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { importGsm8k } from "../calculator/gsm8k.js";
import { saveDataset } from "../data/datasets.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { annotationToJs, gsm8kCodeTask } from "./gsm8k-program.js";
import { codeGsm8k } from "./index.js";

describe("GSM8K annotations as JavaScript", () => {
  it("translates calculator syntax and refuses anything but arithmetic", () => {
    expect(annotationToJs("1,200÷4×3")).toBe("1200/4*3");
    expect(annotationToJs("$20*25%")).toBe("20*(25/100)");
    expect(annotationToJs("2^3")).toBe("2**3");
    expect(annotationToJs("17 % 5")).toBe("17 % 5");
    expect(annotationToJs("alert(1)")).toBeUndefined();
    expect(annotationToJs("")).toBeUndefined();
  });

  it("prints the annotated step that is the answer: 3*4 = 12, then 12-2 = 10 (answer 10, step 2)", () => {
    const task = gsm8kCodeTask({ question: "q", answer: 10, calls: ["3*4", "12-2", "10/5"] });
    expect(task.program).toBe(
      "const step1 = 3*4;\nconst step2 = 12-2;\nconst step3 = 10/5;\nconsole.log(step2);",
    );
  });

  it("solves at least 90 of the GSM8K slice's 100 test problems by running the programs", async () => {
    // The slice is the first 100 lines of test.jsonl; over all 1,319 (`npm run check:data`) 1,226
    // (93%) print the answer; the misses finish in unannotated text.
    const r = await gsm8kPrograms(readFixture("gsm8k", "test.jsonl"));
    expect(r.problems).toBe(100);
    expect(r.solved).toBeGreaterThanOrEqual(90);
  });
});

describe("code-gsm8k over real HTTP on Node", () => {
  let db: LocalDb;
  let secrets: Record<string, string>;
  beforeAll(async () => {
    db = await openLocalDb(":memory:");
    secrets = await generateSecrets();
  });
  afterAll(() => db.close());

  /** `codeGsm8k` on a free port with these bindings, as `npm run envs` serves it. */
  const serveWith = async (bindings: Record<string, unknown>) => {
    const app = createEnvironmentsHost([codeGsm8k]);
    const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((done) => {
      const s = serve({ fetch: (req) => app.fetch(req, bindings), port: 0, hostname: "127.0.0.1" }, (info) =>
        done({ server: s, port: (info as AddressInfo).port }),
      );
    });
    const target = { baseUrl: `http://127.0.0.1:${port}/envs/code-gsm8k`, secrets };
    return {
      c: protocolClient(target),
      close: () => new Promise<void>((done) => server.close(() => done())),
    };
  };

  it("is 404 dataset_not_imported before an import, naming the command", async () => {
    const { c, close } = await serveWith({ ...secrets, EDGEGYM_DB: db });
    try {
      const res = await c.post("/v1/sessions", { split: "train", index: 0 });
      const problem = await expectProblem(res, "dataset_not_imported");
      expect(problem.detail).toContain("npm run data -- import gsm8k");
    } finally {
      await close();
    }
  });

  it("serves the imported gsm8k dataset (shared with calculator-gsm8k): the expert's program gives 10", async () => {
    const imported = importGsm8k(
      '{"question":"Tom has 3 bags of 4 apples and eats 2. How many are left?","answer":"3*4=<<3*4=12>>12\\n12-2=<<12-2=10>>10\\n#### 10"}\n',
      { split: "train" },
    );
    if (!imported.ok) throw new Error(imported.error);
    expect((await saveDataset(db, imported.value)).ok).toBe(true);
    const { c, close } = await serveWith({ ...secrets, EDGEGYM_DB: db });
    try {
      expect((await c.manifest()).splits).toEqual({ train: 1, test: 0 });
      const started = await c.start({ split: "train", index: 0 });
      expect(started.observation.messages[1]?.content).toContain("Tom has 3 bags");
      const action = await c.expert(started.session);
      expect(action.content).toContain("console.log(step2)");
      const ran = await c.step(started.session, action);
      expect(ran.observation.messages[0]?.content).toContain("stdout:\n10");
      const done = await c.step(ran.session, await c.expert(ran.session));
      expect(done).toMatchObject({ done: true, reward: 1 });
    } finally {
      await close();
    }
  });
});
