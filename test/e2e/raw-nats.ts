// A NATS client connection written by hand on a TCP socket, for the e2e tests of bad input: it sends what the
// nats.js client refuses to (a payload above max_payload, a header block nats.js would not encode) and reads the
// server's answer (`-ERR …`) and whether it closed the connection.
import { createConnection } from "node:net";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { waitFor } from "../support/stack.ts";

export class RawNats {
  private readonly socket: Socket;
  private text = "";
  private isClosed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.text += chunk.toString("latin1");
    });
    socket.on("close", () => {
      this.isClosed = true;
    });
    // A write into a connection the server closed resets it; the close is what the tests look at.
    socket.on("error", () => undefined);
  }

  /** Connects without auth (a stack without --secure), waits for INFO and sends CONNECT with headers on. */
  static async connect(url: string): Promise<RawNats> {
    const { hostname, port } = new URL(url);
    const raw = new RawNats(createConnection({ host: hostname, port: Number(port) }));
    await waitFor("the server's INFO", () => raw.text.startsWith("INFO "), { timeoutMs: 5_000, intervalMs: 10 });
    raw.socket.write(`CONNECT {"verbose":false,"pedantic":false,"headers":true,"protocol":1}\r\n`);
    return raw;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The server's `-ERR` lines so far. */
  get errors(): string[] {
    return this.text.split("\r\n").filter((line) => line.startsWith("-ERR"));
  }

  /** `HPUB` with `headerBlock` as is (it must end with an empty line), or `PUB` without one. */
  publish(subject: string, payload: Uint8Array, headerBlock?: string | Uint8Array): void {
    if (headerBlock === undefined) {
      this.socket.write(`PUB ${subject} ${payload.length}\r\n`);
    } else {
      const block = typeof headerBlock === "string" ? Buffer.from(headerBlock, "utf8") : Buffer.from(headerBlock);
      this.socket.write(`HPUB ${subject} ${block.length} ${block.length + payload.length}\r\n`);
      this.socket.write(block);
    }
    this.socket.write(payload);
    this.socket.write("\r\n");
  }

  /**
   * Sends only the protocol line of a publish of `size` bytes and waits for the server's answer. The server checks
   * the size on that line and answers before the payload arrives; writing the payload into the connection it closed
   * would reset it and lose the answer, so the payload follows only if the connection is still open.
   */
  async publishOversized(subject: string, size: number, headerBlock?: string): Promise<{ errors: string[]; closed: boolean }> {
    const block = headerBlock === undefined ? undefined : Buffer.from(headerBlock, "utf8");
    this.socket.write(block === undefined ? `PUB ${subject} ${size}\r\n` : `HPUB ${subject} ${block.length} ${block.length + size}\r\n`);
    await sleep(200);
    if (!this.isClosed) this.socket.write(Buffer.concat([block ?? Buffer.alloc(0), Buffer.alloc(size, 0x61), Buffer.from("\r\n")]));
    await waitFor("the server to answer and close", () => this.errors.length > 0 && this.isClosed, { timeoutMs: 10_000, intervalMs: 20 }).catch(() => undefined);
    return { errors: this.errors, closed: this.isClosed };
  }

  /** PING, and wait for the PONG: everything sent before has been processed by the server. */
  async flush(timeoutMs = 10_000): Promise<void> {
    const pongs = (this.text.match(/\r\nPONG\r\n|^PONG\r\n/g) ?? []).length;
    this.socket.write("PING\r\n");
    await waitFor("PONG", () => (this.text.match(/\r\nPONG\r\n|^PONG\r\n/g) ?? []).length > pongs || this.isClosed, { timeoutMs, intervalMs: 10 });
    if (this.isClosed) throw new Error(`the server closed the connection: ${this.errors.join(" | ")}`);
  }

  close(): void {
    this.socket.destroy();
  }
}
