import fc from "fast-check";
import { expect, it } from "vitest";
import type { TaskRef } from "../../shared/protocol.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { expectProblem, type Suite } from "./client.js";
import { forgeToken } from "./forge.js";

/** Names every plain object answers to through its prototype: a tool lookup must not find them. */
export const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

/**
 * Any string as a name: arbitrary UTF-16 (lone surrogates included), full Unicode, and the names
 * that reach Object.prototype, which random strings almost never hit.
 */
export const anyName = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...PROTOTYPE_NAMES, "__defineGetter__", "isPrototypeOf", "train\u0000", ""),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
  );

/** The protocol's bound on how deeply an action's JSON may nest. */
const MAX_DEPTH = 64;

/** `{"a": {"a": ... {} }}`, `levels` objects deep, built without recursion. */
export function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** base64url's alphabet, in the order of the 6-bit values its characters stand for. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * The same bytes spelled non-canonically: the last character of a base64url text whose length is
 * 2 or 3 mod 4 carries 4 or 2 unused low bits; setting one of them decodes to the same bytes.
 */
export function nonCanonical(part: string): string | undefined {
  const unused = { 2: 4, 3: 2 }[part.length % 4];
  if (unused === undefined) return undefined;
  const last = ALPHABET.indexOf(part.at(-1) ?? "");
  return part.slice(0, -1) + ALPHABET[last ^ 1];
}

/**
 * Input that probes the kit's edges rather than an environment's logic: tool names that live on
 * Object.prototype, deeply nested arguments, the exact action-size boundary, non-canonical and
 * well-sealed but ill-typed tokens. Each once broke a host with a 500.
 */
export function hostileTests(s: Suite): void {
  const solvable = (): TaskRef => s.target.solvable ?? { split: "train", index: 0 };
  const fresh = async () => (await s.client.start(solvable())).session;

  it("property: any string as a tool name (Hermes or OpenAI) or as a split never gets a 5xx", async () => {
    const session = await fresh();
    await fc.assert(
      fc.asyncProperty(anyName(), fc.boolean(), async (name, hermes) => {
        const action = hermes
          ? { content: formatHermesCall(name, {}) }
          : { content: null, tool_calls: [{ id: "c1", function: { name, arguments: "{}" } }] };
        const step = await s.client.post("/v1/step", { session, action });
        expect(step.status, `${JSON.stringify(name)}: ${await step.text()}`).toBeLessThan(500);
        const start = await s.client.post("/v1/sessions", { split: name });
        expect(start.status, `${JSON.stringify(name)}: ${await start.text()}`).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
  });

  it("a tool named after an Object.prototype member is an unknown tool, in Hermes and OpenAI form", async () => {
    const session = await fresh();
    for (const name of PROTOTYPE_NAMES) {
      const hermes = await s.client.step(session, { content: formatHermesCall(name, {}) });
      const openai = await s.client.step(session, {
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name, arguments: "{}" } }],
      });
      for (const r of [hermes, openai]) {
        expect(r.done, name).toBe(false);
        const text = r.observation.messages.map((m) => m.content).join("\n");
        expect(text, name).toContain(`unknown tool "${name}"`);
      }
    }
  });

  it(`OpenAI arguments nested deeper than ${MAX_DEPTH} levels are 422 invalid_request; ${MAX_DEPTH} are served`, async () => {
    const session = await fresh();
    const call = (args: Record<string, unknown>) => ({
      content: null,
      tool_calls: [{ id: "c1", function: { name: "__no_such_tool__", arguments: args } }],
    });
    // 5,000 levels, written as text: JSON.stringify itself overflows the stack on such a value.
    const deep = JSON.stringify({ session, action: call({ a: "DEEP" }) }).replace(
      '{"a":"DEEP"}',
      `${'{"a":'.repeat(4999)}{}${"}".repeat(4999)}`,
    );
    expect(deep.length).toBeGreaterThan(30_000);
    const p = await expectProblem(await s.client.post("/v1/step", deep), "invalid_request");
    expect(p.issues?.[0]?.path).toBe("action.tool_calls.0.function.arguments");
    expect(p.issues?.[0]?.message).toContain(`${MAX_DEPTH}`);
    const batch = await s.client.post("/v1/step:batch", `{"steps":[${deep}]}`);
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as { results: unknown[] }).results[0]).toMatchObject({
      error: { code: "invalid_request" },
    });
    await expectProblem(
      await s.client.post("/v1/step", { session, action: call(nested(MAX_DEPTH + 1)) }),
      "invalid_request",
    );
    // Exactly the bound is an ordinary (unknown-tool) step, provided it fits in maxActionChars:
    // `{"a":` is 5 characters a level, so 64 levels are 5 × 63 + 2 + 63 = 380 characters.
    const atBound = await s.client.step(session, call(nested(MAX_DEPTH)));
    expect(atBound.done).toBe(false);
  });

  it(`a model's Hermes or string arguments nested deeper than ${MAX_DEPTH} levels are a tool error`, async () => {
    const session = await fresh();
    // 65 nested arrays as text: 130 characters, inside every env's maxActionChars.
    const deep = `${"[".repeat(MAX_DEPTH + 1)}${"]".repeat(MAX_DEPTH + 1)}`;
    const hermes = await s.client.step(session, {
      content: `<tool_call>{"name": "x", "arguments": {"a": ${deep}}}</tool_call>`,
    });
    const openai = await s.client.step(session, {
      content: null,
      tool_calls: [{ id: "c1", function: { name: "x", arguments: deep } }],
    });
    for (const r of [hermes, openai]) {
      expect(r.done).toBe(false);
      expect(r.observation.messages.map((m) => m.content).join("\n")).toContain(
        `arguments may nest at most ${MAX_DEPTH} levels`,
      );
    }
  });

  it("maxActionChars counts the content and each call's name and arguments, nothing else", async () => {
    const max = s.manifest.limits.maxActionChars;
    const session = await fresh();
    // A final answer of exactly the limit is served; one character more is not.
    const answer = await s.client.step(session, { content: "x".repeat(max) });
    expect(answer.done).toBe(true);
    await expectProblem(
      await s.client.post("/v1/step", { session, action: { content: "x".repeat(max + 1) } }),
      "action_too_large",
    );
    // An OpenAI call: the name (4 characters) plus its arguments string, "{}" padded with spaces,
    // which JSON.parse ignores; content "ab" adds 2. 4 + 2 + (max - 6) = max.
    const openai = (pad: number) => ({
      content: "ab",
      tool_calls: [{ id: "c1", function: { name: "nope", arguments: `{}${" ".repeat(pad)}` } }],
    });
    const fits = await s.client.step(session, openai(max - 8));
    expect(fits.done).toBe(false);
    await expectProblem(
      await s.client.post("/v1/step", { session, action: openai(max - 7) }),
      "action_too_large",
    );
  });

  it("a token spelled with a non-canonical base64url character is 401 invalid_session", async () => {
    const session = await fresh();
    const parts = session.split(".");
    let changed = 0;
    for (const i of [3, 4]) {
      const variant = nonCanonical(parts[i] ?? "");
      if (variant === undefined) continue;
      const token = parts.map((p, j) => (j === i ? variant : p)).join(".");
      await expectProblem(await s.client.post("/v1/expert", { session: token }), "invalid_session");
      await expectProblem(
        await s.client.post("/v1/step", { session: token, action: { content: "#### 1" } }),
        "invalid_session",
      );
      changed++;
    }
    // The 16-byte tag is 22 characters (22 mod 4 = 2), so at least the tag has spare bits.
    expect(changed).toBeGreaterThan(0);
  });

  it("a token sealed with the real key but with ill-typed claims is 401 invalid_session", async () => {
    const session = await fresh();
    const name = s.manifest.name;
    const edits: Record<string, unknown>[] = [
      { step: "0" },
      { step: null },
      { seed: "x" },
      { seed: 1.5 },
      { index: -1 },
      { split: 7 },
      { ret: "0" },
      { done: "no" },
      { ep: 1 },
      { state: "not a state" },
      { state: 7 },
      { state: null },
      { state: [1, 2] },
    ];
    for (const edit of edits) {
      const token = await forgeToken(session, s.target.secrets, name, { edit: (c) => ({ ...c, ...edit }) });
      const why = JSON.stringify(edit);
      const p = await s.client.post("/v1/expert", { session: token });
      expect(p.status, why).toBe(401);
      await expectProblem(p, "invalid_session");
      await expectProblem(
        await s.client.post("/v1/step", { session: token, action: { content: "#### 1" } }),
        "invalid_session",
      );
    }
  });
}
