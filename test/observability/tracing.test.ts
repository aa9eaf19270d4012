// A scale-up through the local stack (real nats-server, the simulator, the four services as
// processes) exports, through the standard OTEL_* variables and OTLP/HTTP JSON to a receiver on loopback, ONE trace
// with spans from the watcher, the actor, the pvc-provisioner and the status-writer, with the Kubernetes calls
// inside it and messaging spans named by subject template.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { eventSubjects, pvcCommandSubjects, statusSubjects } from "#protocol";
import { useStack, waitFor } from "../support/stack.ts";
import { createSet, getSet, patchSet, waitForConverged } from "../e2e/helpers.ts";
import { OTLP_KIND, otlpEnvironment, startOtlpReceiver } from "./otlp-receiver.ts";
import type { ReceivedSpan } from "./otlp-receiver.ts";

const receiver = await startOtlpReceiver();
after(() => receiver.close());
const t = await useStack({ serviceEnv: otlpEnvironment(receiver) });

const SERVICES = ["stsfleet-watcher", "stsfleet-actor", "stsfleet-pvc-provisioner", "stsfleet-status-writer"] as const;

function byTrace(spans: readonly ReceivedSpan[]): Map<string, ReceivedSpan[]> {
  const traces = new Map<string, ReceivedSpan[]>();
  for (const span of spans) traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span]);
  return traces;
}

function has(spans: readonly ReceivedSpan[], service: string, name: string | RegExp, kind?: number): boolean {
  return spans.some(
    (span) => span.service === service && (typeof name === "string" ? span.name === name : name.test(span.name)) && (kind === undefined || span.kind === kind),
  );
}

/** A trace of the scale-up: every service's part of it, and the Kubernetes calls each makes. */
function isScaleUpTrace(spans: readonly ReceivedSpan[], namespace: string): boolean {
  const ours = spans.some((span) => span.attributes["k8s.namespace.name"] === namespace);
  return (
    ours &&
    SERVICES.every((service) => spans.some((span) => span.service === service)) &&
    has(spans, "stsfleet-actor", "POST pods", OTLP_KIND.client) &&
    has(spans, "stsfleet-pvc-provisioner", "POST persistentvolumeclaims", OTLP_KIND.client) &&
    has(spans, "stsfleet-status-writer", /^(PUT|PATCH) statefulsets/, OTLP_KIND.client)
  );
}

function describeTraces(spans: readonly ReceivedSpan[]): string {
  return [...byTrace(spans).values()]
    .map((trace) => [...new Set(trace.map((span) => `${span.service.replace("stsfleet-", "")}:${span.name}`))].join(", "))
    .slice(-8)
    .join("\n");
}

describe("tracing end to end (OTLP/HTTP JSON to a loopback receiver)", () => {
  it("a scale-up is one trace from the watch event through the actor to the pvc-provisioner and the status-writer", async () => {
    const ns = "trace-scale";
    await t.createNamespace(ns);
    // Created empty, so every pod and claim below is the scale-up's work.
    await createSet(t.kube, ns, "web", { replicas: 0 });
    await waitFor("the empty set's status", async () => {
      const set = await getSet(t.kube, ns, "web");
      return set.status?.observedGeneration === set.metadata.generation;
    });
    await patchSet(t.kube, ns, "web", { spec: { replicas: 2 } });
    await waitForConverged(t.kube, ns, "web", 2);

    const found = await waitFor(
      "one trace with spans of all four services and their Kubernetes calls",
      () => [...byTrace(receiver.spans).values()].find((spans) => isScaleUpTrace(spans, ns)),
      { timeoutMs: 20_000, describeLast: () => `${receiver.rejected.join("; ")}\n${describeTraces(receiver.spans)}` },
    );
    assert.deepEqual(receiver.rejected, [], "every export was OTLP JSON on /v1/traces");
    // A trace arrives over several exports, and a parent span ends (and is exported) after its children: a turn's
    // span outlives its Kubernetes calls. Give the rest of the trace a moment before checking its shape.
    const traceId = found[0]?.traceId ?? "";
    const orphansOf = (spans: readonly ReceivedSpan[]) => {
      const known = new Set(spans.map((span) => span.spanId));
      return spans.filter((span) => span.parentSpanId !== "" && !known.has(span.parentSpanId));
    };
    const current = () => receiver.spans.filter((span) => span.traceId === traceId);
    await waitFor("the trace's parent spans", () => orphansOf(current()).length === 0, { timeoutMs: 10_000 }).catch(() => undefined);
    const trace = current();

    // One connected tree: a single root (the watcher's watch event) and every other span's parent in the trace.
    const ids = new Set(trace.map((span) => span.spanId));
    const roots = trace.filter((span) => span.parentSpanId === "");
    assert.deepEqual(roots.map((span) => [span.service, span.name]), [["stsfleet-watcher", roots[0]?.name ?? ""]]);
    assert.match(roots[0]?.name ?? "", /^process k8s\.watch\./);
    const orphans = trace.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId));
    assert.deepEqual(orphans.map((span) => `${span.service}:${span.name}`), [], "spans whose parent is not in the trace");

    // Messaging spans are named by subject template, with the semantic-convention attributes.
    const consumers = [
      ["stsfleet-pvc-provisioner", pvcCommandSubjects.template, "pvc"],
      ["stsfleet-status-writer", statusSubjects.template, "status"],
    ] as const;
    for (const [service, template, group] of consumers) {
      const span = trace.find((s) => s.service === service && s.name === `process ${template}`);
      assert.ok(span, `${service} has a CONSUMER span process ${template}`);
      assert.equal(span.kind, OTLP_KIND.consumer);
      assert.equal(span.attributes["messaging.system"], "nats");
      assert.equal(span.attributes["messaging.destination.template"], template);
      assert.match(String(span.attributes["messaging.destination.name"]), new RegExp(`^${template.split(".")[0]}\\.`));
      assert.match(String(span.attributes["messaging.destination.partition.id"]), /^\d+$/);
      assert.equal(span.attributes["messaging.consumer.group.name"], group);
    }
    const command = trace.find((s) => s.name === `process ${pvcCommandSubjects.template}`);
    assert.match(String(command?.attributes["messaging.message.id"]), /\/claims\/web-\d$/, "the command's Nats-Msg-Id");
    for (const template of [pvcCommandSubjects.template, statusSubjects.template]) {
      assert.ok(has(trace, "stsfleet-actor", `send ${template}`, OTLP_KIND.producer), `the actor sends ${template}`);
    }
    assert.ok(has(trace, "stsfleet-watcher", /^send k8s\.\{shard\}/, OTLP_KIND.producer), "the watcher's publish span");
    assert.ok(has(trace, "stsfleet-actor", "reconcile StatefulSet", OTLP_KIND.internal), "the actor's turn");
    assert.ok(
      receiver.spans.some((span) => span.name === `process ${eventSubjects.template}` && span.service === "stsfleet-status-writer"),
      "Events are traced too",
    );
    const raw = receiver.spans.filter((span) => /\.\d+\.[a-z0-9-]+\.[a-z0-9_-]+$/.test(span.name));
    assert.deepEqual(raw.map((span) => span.name), [], "no span is named by a raw subject");
    assert.ok(!receiver.spans.some((span) => String(span.attributes["url.path"] ?? "").includes("watch=")), "no spans for watches");
  });
});
