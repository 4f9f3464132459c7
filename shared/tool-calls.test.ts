import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatHermesCall,
  formatOpenAICall,
  formatToolResponses,
  parseHermesCalls,
  parseOpenAICalls,
  stripToolCalls,
} from "./tool-calls.js";

/** Text around calls, biased towards the parser's own markers and JSON punctuation. */
const noisy = fc.string({
  unit: fc.oneof(
    fc.constantFrom("<tool_call>", "</tool_call>", "{", "}", '"', ":", ",", "name", "arguments", "\\"),
    fc.string({ maxLength: 3 }),
  ),
  maxLength: 40,
});
const args = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
const normalise = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

describe("tool-call parsing", () => {
  it("parses Hermes blocks, tolerating string arguments and reporting bad ones", () => {
    const text = `Let me compute.<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"1+1\\"}"}</tool_call>
<tool_call>{"name": "calculator", "arguments": {"expression": "2"}}</tool_call><tool_call>{oops</tool_call><tool_call>{"name":"x"`;
    expect(parseHermesCalls(text)).toEqual([
      { ok: true, id: "call_0", name: "calculator", arguments: { expression: "1+1" } },
      { ok: true, id: "call_1", name: "calculator", arguments: { expression: "2" } },
      { ok: false, id: "call_2", error: "tool call is not valid JSON" },
      { ok: false, id: "call_3", error: "unterminated <tool_call> block: expected </tool_call>" },
    ]);
    expect(stripToolCalls(text)).toBe("Let me compute.");
  });

  it("never throws on random text, and every call has an id", () => {
    fc.assert(
      fc.property(noisy, (text) => {
        const calls = parseHermesCalls(text);
        for (const c of calls) expect(c.id).toMatch(/^call_\d+$/);
        expect(typeof stripToolCalls(text)).toBe("string");
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips formatHermesCall → parseHermesCalls for any name and JSON arguments", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string({ minLength: 1 }), args }), { minLength: 1, maxLength: 4 }),
        fc.string().filter((s) => !s.includes("<tool_call>")),
        (calls, sep) => {
          const text = calls.map((c) => formatHermesCall(c.name, c.args)).join(sep);
          expect(parseHermesCalls(text)).toEqual(
            calls.map((c, i) => ({ ok: true, id: `call_${i}`, name: c.name, arguments: normalise(c.args) })),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps a </tool_call> inside an argument from ending the block", () => {
    const text = formatHermesCall("echo", { text: "a </tool_call> b" });
    expect(parseHermesCalls(text)).toEqual([
      { ok: true, id: "call_0", name: "echo", arguments: { text: "a </tool_call> b" } },
    ]);
  });

  it("OpenAI calls: any argument string is parsed or reported, never thrown; the wire form round-trips", () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: undefined }), (raw, id) => {
        const [call] = parseOpenAICalls([
          { ...(id === undefined ? {} : { id }), function: { name: "f", arguments: raw } },
        ]);
        expect(call?.id).toBe(id ?? "call_0");
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(args, (a) => {
        const wire = formatOpenAICall("c9", "tool", a);
        expect(parseOpenAICalls([wire])).toEqual([
          { ok: true, id: "c9", name: "tool", arguments: normalise(a) },
        ]);
      }),
    );
  });

  it("formats tool responses as one Hermes user message or one tool message per call", () => {
    const rs = [
      { id: "a", name: "t", content: "1" },
      { id: "b", name: "t", content: "2" },
    ];
    expect(formatToolResponses(rs, "hermes")).toEqual([
      { role: "user", content: "<tool_response>\n1\n</tool_response>\n<tool_response>\n2\n</tool_response>" },
    ]);
    expect(formatToolResponses(rs, "openai")).toEqual([
      { role: "tool", tool_call_id: "a", name: "t", content: "1" },
      { role: "tool", tool_call_id: "b", name: "t", content: "2" },
    ]);
  });
});
