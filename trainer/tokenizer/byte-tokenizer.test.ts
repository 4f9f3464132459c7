import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/protocol.js";
import { BYTE_VOCAB_SIZE, ByteTokenizer } from "./byte-tokenizer.js";

const tok = new ByteTokenizer();

describe("byte tokenizer", () => {
  it("encodes UTF-8 bytes and round-trips text", () => {
    // "é" is two UTF-8 bytes, 0xC3 0xA9 = 195 169.
    expect(tok.encode("aé")).toEqual([97, 195, 169]);
    const text = "2 + 2 = 4 ✓ 日本";
    expect(tok.decode(tok.encode(text))).toBe(text);
  });

  it("gives each tool tag a single id", () => {
    const ids = tok.encode('<tool_call>{"a":1}</tool_call>');
    // 256 + index in BYTE_SPECIALS: <tool_call> is 8th (264), </tool_call> 9th (265); 7 JSON bytes between.
    expect(ids[0]).toBe(264);
    expect(ids.at(-1)).toBe(265);
    expect(ids).toHaveLength(9);
    expect(tok.decode(ids)).toBe('<tool_call>{"a":1}</tool_call>');
  });

  it("gives a special's text inside a text its one id, as a tokenizer.json does", () => {
    // <|user|> 260, <|end|> 263; a near miss stays bytes.
    expect(tok.encode("a<|user|>b<|end|>")).toEqual([97, 260, 98, 263]);
    expect(tok.encode("<|en d|>")).toHaveLength(8);
    expect(tok.decode(tok.encode("a<|end|>b"), { keepControl: true })).toBe("a<|end|>b");
  });

  it("drops control tokens when decoding unless asked", () => {
    const ids = [tok.special.bos, 104, 105, tok.special.endOfTurn];
    expect(tok.decode(ids)).toBe("hi");
    expect(tok.decode(ids, { keepControl: true })).toBe("<|bos|>hi<|end|>");
  });

  it("renders a conversation as concatenated turns", () => {
    const first: ChatMessage[] = [
      { role: "system", content: "s" },
      { role: "user", content: "u" },
    ];
    const later: ChatMessage[] = [{ role: "tool", tool_call_id: "c", content: "4" }];
    const response = [...tok.encode("5"), tok.special.endOfTurn];
    const whole = tok.renderChat([...first, { role: "assistant", content: "5" }, ...later], {
      addGenerationPrompt: true,
    });
    // The prompt, the sampled response (ending in <|end|>), then the next turn: the whole rendering.
    const parts = [
      ...tok.renderChat(first, { addGenerationPrompt: true }),
      ...response,
      ...tok.renderNextTurn(first, response, later),
    ];
    expect(parts).toEqual(whole);
    // A response cut before its stop id gets the <|end|> the rendering has.
    expect(tok.renderNextTurn(first, response.slice(0, -1), later)[0]).toBe(tok.special.endOfTurn);
    // bos, <|system|> s <|end|>, <|user|> u <|end|>, then the tool turn and the assistant header.
    expect(whole.slice(0, 7)).toEqual([257, 259, 115, 263, 260, 117, 263]);
    expect(whole.at(-1)).toBe(261);
    expect(Math.max(...whole)).toBeLessThan(BYTE_VOCAB_SIZE);
  });

  it("renders assistant tool calls in Hermes form", () => {
    const ids = tok.renderChat(
      [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "add", arguments: '{"x":1}' } }],
        },
      ],
      { addGenerationPrompt: false },
    );
    expect(tok.decode(ids)).toBe('<tool_call>{"name":"add","arguments":{"x":1}}</tool_call>');
  });
});
