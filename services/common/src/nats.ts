// NATS connection settings and stream provisioning shared by the services. Client defaults are changed on purpose
// (docs/adr/0002-nats-client-v3-against-server-2-9.md): reconnect forever, quickly, and notice half-open connections
// within seconds.
import { jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager, StreamConfig, StreamInfo } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection, Status } from "@nats-io/transport-node";
import { assertNever } from "#protocol";
import { isStreamNotFound } from "./errors/nats.ts";
import type { CommonConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { CommonMetrics } from "./metrics.ts";
import { tolerateUnparsableHeaders } from "./nats-headers.ts";
import { coalesceWrites } from "./nats-writes.ts";

export interface NatsOptions {
  readonly url: string;
  /** Connection name shown by the server (`nats server report connections`). */
  readonly name: string;
  readonly pingIntervalMs?: number;
  readonly reconnectTimeWaitMs?: number;
  readonly user?: string | undefined;
  readonly pass?: string | undefined;
  /** TLS (any field turns it on): the CA that signed the server's certificate, a client certificate for mutual TLS. */
  readonly tls?: NatsTlsFiles | undefined;
  /** Reply subjects; default `_INBOX.<user>` with a user (see inboxPrefixFor), else nats.js's `_INBOX`. */
  readonly inboxPrefix?: string | undefined;
}

export interface NatsTlsFiles {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

/**
 * The inbox prefix of a NATS user: `_INBOX.<user>`. Request replies and JetStream consumer deliveries go to
 * subjects under it, so the server can let each user subscribe to its own inboxes only (deploy/base/nats/auth.conf);
 * under a broad `_INBOX.>` grant it changes nothing. Characters that cannot be in a subject token become `_`.
 */
export function inboxPrefixFor(user: string): string {
  return `_INBOX.${user.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** The connection settings a service takes from its common flags. */
export function natsOptionsFrom(
  config: Pick<CommonConfig, "natsUrl" | "natsUser" | "natsPassword" | "natsTlsCa" | "natsTlsCert" | "natsTlsKey">,
  name: string,
): NatsOptions {
  const tls = { caFile: config.natsTlsCa, certFile: config.natsTlsCert, keyFile: config.natsTlsKey };
  const tlsWanted = Object.values(tls).some((file) => file !== undefined);
  return { url: config.natsUrl, name, user: config.natsUser, pass: config.natsPassword, ...(tlsWanted ? { tls } : {}) };
}

/** nats.js reads the files itself, on every (re)connect, so renewed certificates are picked up. */
function tlsOption(files: NatsTlsFiles): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export interface NatsHandle {
  readonly connection: NatsConnection;
  /** The prefix of this connection's reply subjects (undefined: nats.js's `_INBOX`). */
  readonly inboxPrefix: string | undefined;
  /** True while connected; false between a disconnect and the next reconnect. */
  isConnected(): boolean;
}

export async function connectNats(options: NatsOptions, logger: Logger, metrics?: CommonMetrics): Promise<NatsHandle> {
  const inboxPrefix = options.inboxPrefix ?? (options.user ? inboxPrefixFor(options.user) : undefined);
  const connection = await connect({
    servers: options.url.split(",").map((s) => s.trim()),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 250,
    pingInterval: options.pingIntervalMs ?? 5_000,
    maxPingOut: 2,
    waitOnFirstConnect: true,
    // No Error (with a captured stack) built up front for every request and its timer (ADR 0085): a request that
    // fails still rejects with nats.js's typed errors, only without the caller's async stack.
    noAsyncTraces: true,
    ...(options.user ? { user: options.user, pass: options.pass } : {}),
    ...(options.tls ? { tls: tlsOption(options.tls) } : {}),
    ...(inboxPrefix !== undefined ? { inboxPrefix } : {}),
  });
  let connected = true;
  const log = logger.child({ component: "nats" });
  // A header block nats.js cannot parse (a forged one) must not throw out of a callback and kill the process.
  let unparsableLogged = false;
  const tolerant = tolerateUnparsableHeaders((error) => {
    metrics?.natsErrors.inc({ operation: "unparsable-headers" });
    log[unparsableLogged ? "debug" : "warn"]({ err: error }, "dropped header lines nats.js cannot parse (further ones are logged at debug)");
    unparsableLogged = true;
  });
  if (!tolerant) log.warn("this nats.js version's internals differ: a header block it cannot parse still throws");
  if (!coalesceWrites(connection)) log.warn("this nats.js version's internals differ: writes are not coalesced (slower, still correct)");
  log.info({ server: connection.getServer(), user: options.user, tls: options.tls !== undefined }, "connected to NATS");
  void (async () => {
    for await (const status of connection.status()) {
      connected = applyStatus(status, connected, log, metrics);
    }
  })();
  return { connection, inboxPrefix, isConnected: () => connected && !connection.isClosed() };
}

function applyStatus(status: Status, connected: boolean, log: Logger, metrics: CommonMetrics | undefined): boolean {
  switch (status.type) {
    case "disconnect":
      log.warn({ server: status.server }, "disconnected from NATS");
      metrics?.natsErrors.inc({ operation: "disconnect" });
      return false;
    case "reconnect":
      log.info({ server: status.server }, "reconnected to NATS");
      return true;
    case "close":
      return false;
    case "error":
      log.error({ error: String(status.error) }, "NATS server error");
      metrics?.natsErrors.inc({ operation: "server-error" });
      return connected;
    case "slowConsumer":
      log.warn({ subject: status.sub.getSubject() }, "slow consumer");
      metrics?.natsErrors.inc({ operation: "slow-consumer" });
      return connected;
    case "ldm":
      log.warn("NATS server entered lame duck mode");
      return connected;
    case "staleConnection":
      metrics?.natsErrors.inc({ operation: "stale-connection" });
      return connected;
    case "reconnecting":
    case "update":
    case "ping":
    case "forceReconnect":
      return connected;
    default:
      return assertNever(status, "NATS status");
  }
}

/** The server silently dropped a setting it does not know (nats-server 2.9 ignores 2.10+ fields). */
export class NatsFeatureError extends Error {
  override readonly name = "NatsFeatureError";
  readonly stream: string;
  readonly field: string;

  constructor(stream: string, field: string, wanted: unknown, got: unknown) {
    super(
      `stream ${stream}: the server did not keep ${field} (wanted ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}); ` +
        "it is probably older than the feature (nats-server 2.9 drops unknown fields silently)",
    );
    this.stream = stream;
    this.field = field;
  }
}

export type DesiredStream = Partial<StreamConfig> & Pick<StreamConfig, "name" | "subjects">;

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Creates or updates a stream, then reads it back and refuses a server that dropped any requested field. */
export async function ensureStream(jsm: JetStreamManager, desired: DesiredStream): Promise<StreamInfo> {
  let info: StreamInfo;
  try {
    const existing = await jsm.streams.info(desired.name);
    const differs = Object.entries(desired).some(
      ([key, value]) => !sameValue(value, (existing.config as unknown as Record<string, unknown>)[key]),
    );
    info = differs ? await jsm.streams.update(desired.name, desired) : existing;
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    info = await jsm.streams.add(desired);
  }
  const readBack = (await jsm.streams.info(desired.name)).config as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(desired)) {
    if (!sameValue(value, readBack[key])) throw new NatsFeatureError(desired.name, key, value, readBack[key]);
  }
  return info;
}

export { jetstreamManager };
