// The durable consumer on STS_CMD every pvc-provisioner replica shares: what it must be, and making the server's copy
// so. A 2.9 server silently drops fields it does not know (docs/adr/0002-nats-client-v3-against-server-2-9.md), so what
// it reports back is checked.
import { AckPolicy } from "@nats-io/jetstream";
import type { ConsumerConfig, JetStreamManager } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { CONSUMERS, STREAMS, pvcCommandSubjects } from "#protocol";
import { isConsumerNotFound, isStreamNotFound } from "../../common/src/errors/nats.ts";
import { NatsFeatureError } from "../../common/src/nats.ts";
import type { PvcProvisionerSettings } from "./config.ts";

/** The consumer every replica shares. nats-server 2.9 replaces ack_wait with backoff[0] when a backoff is set. */
export function desiredConsumer(settings: PvcProvisionerSettings): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: CONSUMERS.pvcProvisioner,
    filter_subject: pvcCommandSubjects.all,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: settings.maxDeliver,
    max_ack_pending: settings.maxAckPending,
    ...(settings.redeliveryBackoffMs.length > 0 ? { backoff: settings.redeliveryBackoffMs.map((ms) => nanos(ms)) } : {}),
  };
}

/** What the server must report back for our consumer; with a backoff it reports backoff[0] as the ack wait. */
function consumerMismatch(config: ConsumerConfig, desired: ReturnType<typeof desiredConsumer>): [string, unknown, unknown] | undefined {
  const backoff = desired.backoff ?? [];
  const checks: [string, unknown, unknown][] = [
    ["filter_subject", desired.filter_subject, config.filter_subject],
    ["max_deliver", desired.max_deliver, config.max_deliver],
    ["max_ack_pending", desired.max_ack_pending, config.max_ack_pending],
    ["backoff", backoff, config.backoff ?? []],
    ["ack_wait", backoff[0] ?? desired.ack_wait, config.ack_wait],
  ];
  return checks.find(([, wanted, got]) => JSON.stringify(wanted) !== JSON.stringify(got));
}

/** Creates the durable consumer, or updates it when this replica's flags differ from what the server has. */
export async function ensureConsumer(jsm: JetStreamManager, settings: PvcProvisionerSettings): Promise<void> {
  const desired = desiredConsumer(settings);
  let info;
  try {
    info = await jsm.consumers.info(STREAMS.commands, desired.durable_name);
  } catch (error) {
    if (!isConsumerNotFound(error) && !isStreamNotFound(error)) throw error;
    info = await jsm.consumers.add(STREAMS.commands, desired);
  }
  if (consumerMismatch(info.config, desired)) {
    info = await jsm.consumers.update(STREAMS.commands, desired.durable_name, {
      ack_wait: desired.ack_wait,
      max_deliver: desired.max_deliver,
      max_ack_pending: desired.max_ack_pending,
      filter_subject: desired.filter_subject,
      backoff: desired.backoff ?? [],
    });
  }
  const mismatch = consumerMismatch(info.config, desired);
  if (mismatch) throw new NatsFeatureError(`${STREAMS.commands}/${desired.durable_name}`, ...mismatch);
}
