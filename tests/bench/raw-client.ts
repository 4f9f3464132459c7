import { connect, type Socket } from "node:net";

const HEADER_END = Buffer.from("\r\n\r\n");

/**
 * One keep-alive HTTP/1.1 connection with one request in flight, for the load generator: the request
 * is one pre-formatted write and the response is cut by its Content-Length, with no stream, header
 * object or parser state per response. On a 2-core machine the generator shares the CPU with the
 * server, so every microsecond it spends is one the server does not get. Both hosts answer with a
 * Content-Length; anything else (chunked encoding, a closed socket) fails the request loudly.
 */
export class RawConnection {
  private readonly socket: Socket;
  private readonly ready: Promise<void>;
  private buffered: Buffer = Buffer.alloc(0);
  private pending?: { resolve: (r: { status: number; text: string }) => void; reject: (e: Error) => void };

  constructor(
    private readonly host: string,
    port: number,
  ) {
    this.socket = connect({ host, port, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (e) => this.fail(e));
    this.socket.on("close", () => this.fail(new Error("connection closed")));
  }

  async post(path: string, body: string): Promise<{ status: number; text: string }> {
    await this.ready;
    if (this.pending) throw new Error("one request at a time per connection");
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(
        `POST ${path} HTTP/1.1\r\nhost: ${this.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffered.toString("latin1", 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (length === undefined) {
      this.fail(new Error(`response without content-length: ${head}`));
      return;
    }
    const total = end + HEADER_END.length + Number(length);
    if (this.buffered.length < total) return;
    const text = this.buffered.toString("utf8", end + HEADER_END.length, total);
    this.buffered = this.buffered.subarray(total);
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ status: Number(head.slice(9, 12)), text });
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}
