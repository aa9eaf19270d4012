// A loopback TCP proxy between NATS clients and a nats-server that can cut (blackhole) or delay the connections of
// one client, chosen by the name it sends in its NATS CONNECT (`actor/actor-1`), as Akka's
// testConductor.blackhole does for a node. All actors connect through one proxy URL (the stack passes the same
// --nats-url to every replica), and the proxy tells their connections apart by that name.
//
// A cut behaves like a network partition, not like a closed socket: both directions stop being read (TCP
// back-pressure holds the bytes, nothing is lost or reordered), neither side learns anything until its own ping
// timer gives up, and a connection the server closed meanwhile is ended towards the client only when the cut heals.
// New connections of a cut client get the server's INFO, and their CONNECT is held: the client cannot connect.
import { connect, createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";

export type LinkMode = { readonly type: "open" } | { readonly type: "cut" } | { readonly type: "delay"; readonly delayMs: number };

/** One direction of one proxied connection: holds chunks while cut, delays them in order, else forwards. */
class Pipe {
  private readonly from: Socket;
  private readonly to: Socket;
  private held: Buffer[] = [];
  private holding = false;
  private delayMs = 0;
  private lastDueMs = 0;
  private pendingTimers = 0;
  private endAfterDrain = false;
  bytes = 0;

  constructor(from: Socket, to: Socket) {
    this.from = from;
    this.to = to;
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.holding) {
      this.held.push(chunk);
      this.from.pause();
      return;
    }
    this.send(chunk);
  }

  private send(chunk: Buffer): void {
    if (this.delayMs <= 0 && this.pendingTimers === 0) {
      this.write(chunk);
      return;
    }
    // In order: never earlier than a chunk scheduled before it.
    const dueMs = Math.max(performance.now() + this.delayMs, this.lastDueMs);
    this.lastDueMs = dueMs;
    this.pendingTimers += 1;
    setTimeout(() => {
      this.pendingTimers -= 1;
      this.write(chunk);
      if (this.pendingTimers === 0 && this.endAfterDrain) this.to.end();
    }, dueMs - performance.now()).unref();
  }

  private write(chunk: Buffer): void {
    if (this.to.destroyed) return;
    if (!this.to.write(chunk)) {
      this.from.pause();
      this.to.once("drain", () => {
        if (!this.holding) this.from.resume();
      });
    }
  }

  /** The source ended: pass the end on once everything before it went out (at once unless held or delayed). */
  end(): void {
    if (this.holding || this.pendingTimers > 0) {
      this.endAfterDrain = true;
      return;
    }
    this.to.end();
  }

  setMode(mode: LinkMode): void {
    this.delayMs = mode.type === "delay" ? mode.delayMs : 0;
    if (mode.type === "cut") {
      this.holding = true;
      this.from.pause();
      return;
    }
    if (!this.holding) return;
    this.holding = false;
    for (const chunk of this.held.splice(0)) this.send(chunk);
    if (this.endAfterDrain && this.pendingTimers === 0) this.to.end();
    else this.from.resume();
  }
}

export interface ProxiedConnection {
  readonly id: number;
  /** The client's CONNECT name, once it has sent CONNECT. */
  readonly name: string | undefined;
  readonly openedAtMs: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
}

class Connection {
  readonly id: number;
  readonly openedAtMs = Date.now();
  name: string | undefined;
  private sniffed = Buffer.alloc(0);
  private readonly up: Pipe;
  private readonly down: Pipe;
  private readonly client: Socket;
  private readonly server: Socket;
  private readonly modeOf: (name: string) => LinkMode;

  constructor(id: number, client: Socket, server: Socket, modeOf: (name: string) => LinkMode, onClose: () => void) {
    this.id = id;
    this.client = client;
    this.server = server;
    this.modeOf = modeOf;
    this.up = new Pipe(client, server);
    this.down = new Pipe(server, client);
    client.on("data", (chunk: Buffer) => this.fromClient(chunk));
    server.on("data", (chunk: Buffer) => this.down.push(chunk));
    client.on("end", () => this.up.end());
    server.on("end", () => this.down.end());
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      client.destroy();
      server.destroy();
      onClose();
    };
    // An error or close on one side ends the other only when the link is open; a cut link hides it (see setMode).
    client.on("close", close);
    server.on("close", () => {
      if (this.name === undefined || this.modeOf(this.name).type !== "cut") close();
      else this.serverClosedWhileCut = true;
    });
    client.on("error", () => undefined);
    server.on("error", () => undefined);
  }

  private serverClosedWhileCut = false;

  get info(): ProxiedConnection {
    return { id: this.id, name: this.name, openedAtMs: this.openedAtMs, bytesUp: this.up.bytes, bytesDown: this.down.bytes };
  }

  /** Until the client's CONNECT line is complete, bytes are kept back; then the name decides the link's mode. */
  private fromClient(chunk: Buffer): void {
    if (this.name !== undefined) {
      this.up.push(chunk);
      return;
    }
    this.sniffed = Buffer.concat([this.sniffed, chunk]);
    const end = this.sniffed.indexOf("\r\n");
    if (end < 0 && this.sniffed.length < 64 * 1024) return;
    this.name = parseConnectName(this.sniffed.subarray(0, Math.max(0, end)).toString("utf8")) ?? "";
    const first = this.sniffed;
    this.sniffed = Buffer.alloc(0);
    this.apply(this.modeOf(this.name));
    this.up.push(first);
  }

  apply(mode: LinkMode): void {
    this.up.setMode(mode);
    this.down.setMode(mode);
    // The server hung up during the cut: now that the network "works" again, the client learns it.
    if (mode.type !== "cut" && this.serverClosedWhileCut) {
      this.client.end();
      setTimeout(() => this.client.destroy(), 100).unref();
    }
  }

  destroy(): void {
    this.client.destroy();
    this.server.destroy();
  }
}

/** The `name` of a NATS `CONNECT {json}` line, or undefined for anything else. */
export function parseConnectName(line: string): string | undefined {
  const match = /^CONNECT\s+(\{.*\})\s*$/i.exec(line);
  if (!match?.[1]) return undefined;
  try {
    const options = JSON.parse(match[1]) as { name?: unknown };
    return typeof options.name === "string" ? options.name : undefined;
  } catch {
    return undefined;
  }
}

export class NatsProxy {
  private listenPort = 0;
  private readonly server: Server;
  private readonly connections = new Map<number, Connection>();
  private readonly modes = new Map<string, LinkMode>();

  private constructor(upstream: string | (() => string)) {
    let nextId = 1;
    this.server = createServer((client) => {
      const target = new URL(typeof upstream === "string" ? upstream : upstream());
      const upstreamSocket = connect({ host: target.hostname, port: Number(target.port || 4222) });
      const id = nextId++;
      const connection = new Connection(id, client, upstreamSocket, (name) => this.modeOf(name), () => this.connections.delete(id));
      this.connections.set(id, connection);
    });
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.listenPort}`;
  }

  /**
   * Listens on 127.0.0.1 (a random port, or `port` to come back on the same one) and forwards every connection
   * to `upstream` (`nats://host:port`, read anew for each connection so the server may move).
   */
  static async start(upstream: string | (() => string), options: { port?: number } = {}): Promise<NatsProxy> {
    const proxy = new NatsProxy(upstream);
    proxy.listenPort = await new Promise<number>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(options.port ?? 0, "127.0.0.1", () => resolve((proxy.server.address() as AddressInfo).port));
    });
    return proxy;
  }

  modeOf(name: string): LinkMode {
    return this.modes.get(name) ?? { type: "open" };
  }

  /** Sets the link of every connection (current and future) of the client named `name`. */
  setMode(name: string, mode: LinkMode): void {
    if (mode.type === "open") this.modes.delete(name);
    else this.modes.set(name, mode);
    for (const connection of this.connections.values()) if (connection.name === name) connection.apply(mode);
  }

  cut(name: string): void {
    this.setMode(name, { type: "cut" });
  }

  delay(name: string, delayMs: number): void {
    this.setMode(name, { type: "delay", delayMs });
  }

  heal(name: string): void {
    this.setMode(name, { type: "open" });
  }

  list(): ProxiedConnection[] {
    return [...this.connections.values()].map((c) => c.info);
  }

  async stop(): Promise<void> {
    for (const connection of this.connections.values()) connection.destroy();
    this.connections.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
