// StatusRequests alone, with a store of StatefulSets whose reads wait at a gate and requests that keep their
// answers: intake refusals, latest-wins per set, shutdown. Over NATS and the simulator: writer.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SAMPLE_MESSAGES, codecs, statusSubjects } from "#protocol";
import type { StatusResult, StatusWrite } from "#protocol";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import type { ResourceRef } from "../../common/src/kube.ts";
import { createLogger } from "../../common/src/logger.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import { DEFAULT_STATUS_WRITER_SETTINGS } from "./config.ts";
import { createStatusWriterMetrics } from "./metrics.ts";
import type { TakenMessage } from "./spans.ts";
import { StatusRequests } from "./status-requests.ts";

const SAMPLE = SAMPLE_MESSAGES["status.write"];
const SUBJECT = statusSubjects.build({ shard: SAMPLE.shard, namespace: SAMPLE.set.namespace, name: SAMPLE.set.name });

/** A request that keeps the answers it was given. */
class Request implements TakenMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers = undefined;
  readonly reply = "_INBOX.test";
  readonly answers: StatusResult[] = [];

  constructor(write: StatusWrite | Uint8Array, subject = SUBJECT) {
    this.subject = subject;
    this.data = write instanceof Uint8Array ? write : codecs.statusWrite.encode(write);
  }
  respond(data?: Uint8Array | string): boolean {
    this.answers.push(codecs.statusResult.decode(data as Uint8Array));
    return true;
  }
  get outcome(): string | undefined {
    return this.answers.map((a) => a.outcome).join(",") || undefined;
  }
}

type StoredSet = { metadata: { namespace: string; name: string; uid: string; generation: number; resourceVersion: string }; status?: unknown };

/** One StatefulSet; every read waits until the gate is opened. */
class SetStore {
  set: StoredSet = { metadata: { ...SAMPLE.set, generation: 3, resourceVersion: "1" } };
  reads = 0;
  private gate: Promise<void> = Promise.resolve();
  private opening: (() => void) | undefined;
  close(): void {
    this.gate = new Promise((resolve) => (this.opening = resolve));
  }
  open(): void {
    this.opening?.();
  }
  readonly kube: KubeApi = {
    get: async <T>() => {
      this.reads += 1;
      await this.gate;
      return structuredClone(this.set) as T;
    },
    create: () => Promise.reject(new Error("not used")),
    replace: <T>(_ref: ResourceRef, body: unknown) => {
      const next = body as StoredSet;
      this.set = { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(next.metadata.resourceVersion) + 1) } };
      return Promise.resolve(structuredClone(this.set) as T);
    },
    patch: () => Promise.reject(new Error("not used")),
  };
}

function setup(currentEpoch = SAMPLE.epoch) {
  const store = new SetStore();
  const common = createCommonMetrics("status-writer", "test");
  const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
  const requests = new StatusRequests(DEFAULT_STATUS_WRITER_SETTINGS, {
    kube: store.kube,
    epochs: { isStale: (_shard, epoch) => epoch < currentEpoch },
    metrics: createStatusWriterMetrics(common),
    drops: new DropReporter(common, logger),
    logger,
  });
  return { store, requests };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition(), what);
}

const withReplicas = (replicas: number): StatusWrite => ({ ...SAMPLE, status: { ...SAMPLE.status, replicas } });

describe("StatusRequests", () => {
  it("writes a request's status and answers written", async () => {
    const { store, requests } = setup();
    const request = new Request(withReplicas(3));
    requests.take(request);
    await until(() => request.outcome !== undefined, "answered");
    assert.equal(request.outcome, "written");
    assert.deepEqual((store.set.status as { replicas: number }).replicas, 3);
  });

  it("lets the latest request for a set win: one waiting behind a running write is answered superseded", async () => {
    const { store, requests } = setup();
    store.close();
    const [first, second, third] = [new Request(withReplicas(1)), new Request(withReplicas(2)), new Request(withReplicas(3))];
    requests.take(first);
    await until(() => store.reads === 1, "the first write is running");
    requests.take(second);
    requests.take(third);
    assert.equal(second.outcome, "superseded");
    store.open();
    await requests.stop();
    assert.deepEqual([first.outcome, third.outcome], ["written", "written"]);
    assert.deepEqual((store.set.status as { replicas: number }).replicas, 3);
  });

  it("answers at once what it will not write: garbage, a fenced owner's request, anything after stop", async () => {
    const { store, requests } = setup(SAMPLE.epoch + 1);
    const garbage = new Request(new TextEncoder().encode("{not msgpack"));
    requests.take(garbage);
    assert.deepEqual(garbage.answers, [{ type: "status.result", outcome: "failed", message: "dropped: malformed" }]);
    const fenced = new Request(SAMPLE);
    requests.take(fenced);
    assert.equal(fenced.outcome, "stale-epoch");
    await requests.stop();
    const late = new Request({ ...SAMPLE, epoch: SAMPLE.epoch + 1 });
    requests.take(late);
    assert.deepEqual(late.answers, [{ type: "status.result", outcome: "failed", message: "status-writer is shutting down" }]);
    assert.equal(store.reads, 0);
  });
});
