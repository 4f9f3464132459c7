import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A chat completion request as the faulty model reads it. */
export type SeenRequest = {
  model: string;
  max_tokens?: number;
  tools?: { function: { name: string } }[];
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
};

export type Faults = {
  /** Answer HTTP 400 (with a JSON error body) on every `failEvery`-th request: 3 fails calls 3, 6, 9… */
  failEvery?: number;
  /** Never answer: the request is read and left open, for the client's deadline. */
  hang?: boolean;
};

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => resolve(text));
  });

/**
 * A real HTTP server speaking the OpenAI chat-completions API for tests, failing on purpose. It
 * solves calculator tasks: on a fresh conversation it calls the calculator with the answer that
 * `answers` holds for the user's question (an OpenAI `tool_calls` reply when the request has `tools`,
 * a Hermes `<tool_call>` text otherwise); once it has the tool's result it answers `#### <result>`.
 */
export async function faultyChatModel(answers: ReadonlyMap<string, number>, faults: Faults = {}) {
  const seen: SeenRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const request = JSON.parse(await body(req)) as SeenRequest;
    seen.push(request);
    if (faults.hang) return;
    if (faults.failEvery !== undefined && seen.length % faults.failEvery === 0) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `bad request number ${seen.length}`, type: "invalid" } }));
      return;
    }
    const last = request.messages.at(-1);
    const result =
      last?.role === "tool"
        ? last.content
        : /<tool_response>\n(.*)\n<\/tool_response>/.exec(last?.content ?? "")?.[1];
    const question = request.messages.find((m) => m.role === "user")?.content ?? "";
    const expression = String(answers.get(question) ?? 0);
    const call = { name: "calculator", arguments: { expression } };
    const message =
      result !== undefined && result !== null
        ? { role: "assistant", content: `#### ${result}` }
        : request.tools
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: `call_${seen.length}`,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                },
              ],
            }
          : { role: "assistant", content: `<tool_call>${JSON.stringify(call)}</tool_call>` };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "cmpl",
        object: "chat.completion",
        created: 0,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: "stop" }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL on which nothing listens: a port the system gave out and that was closed again. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
