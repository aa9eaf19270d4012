// Opening the intent log when the actor starts: pin or check its layout and create its quorum replicas (retried
// while NATS cannot answer, ADR 0093; a layout other actors do not share stops the actor, ADR 0084), keep the layout
// record readable while the actor runs (ADR 0088), and build the appender a turn and a takeover use: one stream, or
// a quorum of single-replica streams.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { Logger } from "../../common/src/logger.ts";
import type { ServiceDeps } from "../../common/src/service.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { IntentLogLayoutError, IntentLogPlacementError, provisionIntentLog } from "../../common/src/topology.ts";
import type { ProvisionedIntentLog } from "../../common/src/topology.ts";
import type { ActorConfig } from "./config.ts";
import type { ActorMetrics } from "./metrics.ts";
import { guardIntentLogLayout } from "./runtime/layout-guard.ts";
import type { LayoutGuard } from "./runtime/layout-guard.ts";
import { INTENT_API_TIMEOUT_MS, IntentLog, QuorumIntentLog } from "./runtime/intents.ts";
import type { IntentAppender } from "./runtime/intents.ts";

export interface OpenedIntentLog {
  readonly intents: IntentAppender;
  /** Writes the layout back over garbage or a delete until stopped. */
  readonly layoutGuard: LayoutGuard;
}

export interface IntentLogSetup {
  /** How long a starting actor waits for a running one to repair an unreadable layout record (a lease duration). */
  readonly unreadableWaitMs: number;
  readonly metrics: ActorMetrics;
  /** Told of every set's last record the log reads: what was acted on (generation floors). */
  readonly onLastRecord: (address: SetAddress, intent: Intent) => void;
}

/** A layout this actor cannot append by, whatever NATS does: waiting would not change it. */
function isLayoutRefusal(error: unknown): boolean {
  return error instanceof IntentLogLayoutError || error instanceof IntentLogPlacementError;
}

/** Provisions the log, retried until NATS answers; a layout refusal is thrown at once. Logs where the replicas are. */
async function provisionLog(config: ActorConfig, deps: ServiceDeps, unreadableWaitMs: number): Promise<ProvisionedIntentLog> {
  const { logger } = deps;
  const provisioned = await deps.startup.retry("provisioning the intent log", async () => {
    try {
      return { log: await provisionIntentLog(deps.topology, config.intentLogPlacement, { unreadableWaitMs, logger }) };
    } catch (error) {
      if (isLayoutRefusal(error)) return { refusal: error };
      throw error;
    }
  });
  if ("refusal" in provisioned) throw provisioned.refusal;
  const { log } = provisioned;
  if (log.layout.placement.length > 0) {
    const servers = log.servers.map((server, i) => `${intentReplicaStream(i)}@${server ?? "?"}`);
    if (log.unavailable.length > 0) logger.warn({ servers, unavailable: log.unavailable }, "some intent log replicas are unavailable; appends go to the majority that is there");
    else if (log.servers.includes(undefined)) logger.warn({ servers }, "the quorum intent log's replicas are on a server that is not clustered: losing it loses all of them");
    else logger.info({ servers }, "intent log kept by a quorum of single-replica streams");
  }
  return log;
}

/** The appender over one stream, or over a quorum of replicas when the config places them. */
async function createAppender(config: ActorConfig, connection: NatsConnection, inboxPrefix: string | undefined, logger: Logger, setup: IntentLogSetup, drops: DropReporter): Promise<IntentAppender> {
  // Appends through StreamPublisher (ADR 0085): one reply subscription and one timer instead of a request() each.
  const js = new StreamPublisher(connection, { timeoutMs: INTENT_API_TIMEOUT_MS, inboxPrefix });
  const jsm = await jetstreamManager(connection, { timeout: INTENT_API_TIMEOUT_MS });
  if (config.intentLogPlacement.length === 0) return new IntentLog(js, jsm, undefined, setup.onLastRecord, drops);
  const replicas = config.intentLogPlacement.map(
    (_, replica) => new IntentLog(js, jsm, { stream: intentReplicaStream(replica), subjects: intentReplicaSubjects(replica) }, setup.onLastRecord, drops),
  );
  return new QuorumIntentLog(replicas, { onReplicaError: (stream, error) => setup.metrics.intentReplicaError(stream, error) });
}

export async function openIntentLog(config: ActorConfig, deps: ServiceDeps, setup: IntentLogSetup): Promise<OpenedIntentLog> {
  const { logger, metrics: common } = deps;
  const log = await provisionLog(config, deps, setup.unreadableWaitMs);
  // Starting actors read the layout; running ones write it back over garbage or a delete (ADR 0088).
  const layoutGuard = await guardIntentLogLayout({
    members: deps.topology.members,
    layout: log.layout,
    logger: logger.child({ component: "layout-guard" }),
    onUndecodable(reason) {
      common.droppedMessages.inc({ subject: `$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`, reason });
    },
  });
  // Undecodable intent-log entries are counted and logged, rate-limited (ADR 0089).
  const intents = await createAppender(config, deps.nats.connection, deps.nats.inboxPrefix, logger, setup, new DropReporter(common, logger));
  return { intents, layoutGuard };
}
