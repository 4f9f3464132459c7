import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeConformance } from "../../tests/conformance/index.js";
import { serveOnNode } from "../../tests/conformance/node-target.js";
import { importWebshopSample } from "../../tests/data-checks/webshop.js";
import { readFixture } from "../../tests/fixtures/read-fixture.js";
import { openLocalDb } from "../data/local-db.js";
import { createWebshop, createWebshopReal } from "./index.js";

/** A small catalog keeps loading fast; the behaviour under test does not depend on its size. */
const webshop = createWebshop({ catalogSize: 200 });

async function nodeTarget() {
  const db = await openLocalDb(":memory:");
  const served = await serveOnNode([webshop], { bindings: { EDGEGYM_DB: db } });
  const close = async () => {
    await served.close?.();
    db.close();
  };
  return { ...served, close };
}

describeConformance("webshop on Node", nodeTarget);

describeConformance("webshop-real on Node (the imported slice)", async () => {
  const db = await openLocalDb(":memory:");
  await importWebshopSample(
    db,
    readFixture("webshop", "documents_17.jsonl"),
    readFixture("webshop", "items_ins_v2_1000.json"),
  );
  const served = await serveOnNode([createWebshopReal()], { bindings: { EDGEGYM_DB: db } });
  const close = async () => {
    await served.close?.();
    db.close();
  };
  return { ...served, close };
});

describe("webshop over HTTP on Node", () => {
  let target: Awaited<ReturnType<typeof nodeTarget>>;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${target.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const text = (r: { body: Record<string, unknown> }) =>
    ((r.body.observation as { messages: { content: string }[] }).messages.at(-1)?.content ?? "").replace(
      /<\/?tool_response>\n?/g,
      "",
    );
  beforeAll(async () => {
    target = await nodeTarget();
  });
  afterAll(() => target.close());

  it("takes raw search[...] text and env_step calls alike, with has_search_bar and clickables in info", async () => {
    const start = await post("/v1/sessions", { split: "train", index: 3 });
    expect(start.status).toBe(201);
    const session = start.body.session as string;
    const raw = await post("/v1/step", { session, action: { content: "search[running shoes]" } });
    const tool = await post("/v1/step", {
      session,
      action: {
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "env_step", arguments: '{"command":"search[running shoes]"}' },
          },
        ],
      },
    });
    expect(text(raw).trim()).toBe(text(tool).trim());
    expect(text(raw)).toMatch(
      /Back to Search \[SEP\] Page 1 \(Total results: \d+\) \[SEP\] Next > \[SEP\] B0/,
    );
    expect(raw.body.info).toMatchObject({ has_search_bar: false, valid_action: true });
    expect((raw.body.info as { clickables: string[] }).clickables.slice(0, 2)).toEqual([
      "back to search",
      "next >",
    ]);
  });

  it("an unavailable click leaves the page unchanged, with reward 0 and not done", async () => {
    const start = await post("/v1/sessions", { split: "train", index: 4 });
    const session = start.body.session as string;
    const bad = await post("/v1/step", { session, action: { content: "click[buy now]" } });
    expect(bad.body).toMatchObject({
      reward: 0,
      done: false,
      info: { valid_action: false, has_search_bar: true },
    });
    expect(text(bad).trim()).toMatch(/^WebShop \[SEP\] Instruction: \[SEP\] .+ \[SEP\] Search$/);
  });

  it("fuzzed commands never fail the request: invalid ones keep the page, valid ones move it", async () => {
    const start = await post("/v1/sessions", { split: "train", index: 5 });
    const session = start.body.session as string;
    const first = await post("/v1/step", { session, action: { content: "search[shoes]" } });
    const onResults = first.body.session as string;
    const command = fc.oneof(
      fc.string({ maxLength: 60 }).map((s) => `search[${s}]`),
      fc.string({ maxLength: 30 }).map((s) => `click[${s}]`),
      fc.constantFrom(
        "click[next >]",
        "click[< prev]",
        "click[back to search]",
        "click[buy now]",
        "search[]",
      ),
      fc.string({ maxLength: 40 }).map((s) => `click[${s}] search[${s}"*)(]`),
    );
    await fc.assert(
      fc.asyncProperty(command, async (c) => {
        const r = await post("/v1/step", { session: onResults, action: { content: c } });
        expect(r.status).toBe(200);
        expect(r.body.done === true).toBe(false);
        const info = r.body.info as { valid_action: boolean };
        if (!info.valid_action) expect(text(r)).toBe(text(first));
      }),
      { numRuns: 60 },
    );
  });
});
