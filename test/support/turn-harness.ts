// What a unit test of one reconcile turn gives createTurnRunner: an owner that always holds the shard at epoch 7,
// and an intent log that records every record appended and then refuses it (FencedError), so nothing reaches
// Kubernetes and the test reads what the turn would have done. Everything else is the test's to pass.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Intent, SetAddress } from "#protocol";
import { createLogger } from "../../services/common/src/logger.ts";
import type { ObjectStore } from "../../services/actor/src/domain/object-store.ts";
import type { Executor } from "../../services/actor/src/runtime/executor.ts";
import { FencedError } from "../../services/actor/src/runtime/intents.ts";
import type { TurnTrigger } from "../../services/actor/src/runtime/actor-system.ts";
import type { TurnDeps } from "../../services/actor/src/runtime/turn.ts";

export const TURN_TRIGGER: TurnTrigger = { reasons: ["test"], links: [], enqueuedAtMs: 0 };

/** Deps of a turn over `store` whose intents are appended to `appended` and refused; `overrides` replace any. */
export function refusedTurnDeps(store: ObjectStore, overrides: Partial<TurnDeps> = {}): { readonly deps: TurnDeps; readonly appended: Intent[] } {
  const appended: Intent[] = [];
  const deps: TurnDeps = {
    store,
    ownership: {
      epochOf: () => 7,
      canAct: () => true,
      signalFor: () => new AbortController().signal,
      isSynced: () => true,
      fenced: () => undefined,
    },
    intents: {
      append: (address: SetAddress, intent: Intent) => {
        appended.push(intent);
        return Promise.reject(new FencedError(`intent.${address.shard}.${address.namespace}.${address.name}`, 7, 8));
      },
      forgetShard: () => undefined,
    },
    executor: {} as Executor,
    nats: {} as NatsConnection,
    member: "actor-0",
    incarnation: "i0",
    planOptions: {},
    statusTimeoutMs: 1_000,
    retryPeriodMs: 100,
    logger: createLogger({ service: "actor", instance: "test", level: "silent", format: "json" }),
    ...overrides,
  };
  return { deps, appended };
}
