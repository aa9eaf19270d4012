// Bad input (docs/RELIABILITY.md): garbage published once on every subject the fleet uses must not wedge it. Random
// bytes, a truncated MessagePack array, the JSON text `{}` and an empty MessagePack map go, in that order, to every
// subject of a converged set and every key of the fleet's buckets (tools/chaos/garbage.ts). Afterwards a scale of
// that set and a new set in another namespace (with its SuccessfulCreate Events) converge within 30 s, and no
// service died. The rules are in docs/adr/0088 and 0089; what each input does, in docs/RELIABILITY.md.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { injectGarbage } from "../../tools/chaos/garbage.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { createSet, listEvents, patchSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const CONVERGE_MS = 30_000;

describe("garbage once on every subject the fleet uses", () => {
  let nc: NatsConnection;
  const pids = new Map<string, number>();

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-garbage" });
    for (const name of SERVICES) pids.set(name, t.stack.service(name).pid ?? -1);
  });
  after(async () => {
    await nc.drain();
  });

  it("a scale of a poisoned set and a new set in another namespace converge within 30 s; no service dies", async () => {
    const ns = "e2e-garbage";
    const fresh = "e2e-garbage-new";
    await t.createNamespace(ns);
    await t.createNamespace(fresh);
    await createSet(t.kube, ns, "base", { replicas: 2 });
    await waitForConverged(t.kube, ns, "base", 2);

    const { targets } = await injectGarbage(nc, [{ namespace: ns, name: "base" }], ["actor-0"]);
    assert.ok(targets.stream.length >= 5, `the set's stream subjects: ${JSON.stringify(targets.stream)}`);
    assert.ok(targets.kv.includes("$KV.leases.watcher") && targets.kv.includes("$KV.members.m.actor-0"), JSON.stringify(targets.kv.slice(0, 10)));

    const scaledAt = performance.now();
    await patchSet(t.kube, ns, "base", { spec: { replicas: 4 } });
    await createSet(t.kube, fresh, "web", { replicas: 2 });
    await waitForConverged(t.kube, ns, "base", 4, CONVERGE_MS);
    await waitForConverged(t.kube, fresh, "web", 2, Math.max(1_000, CONVERGE_MS - (performance.now() - scaledAt)));
    const events = await waitFor(
      `SuccessfulCreate Events of ${fresh}/web`,
      async () => {
        const found = (await listEvents(t.kube, fresh)).filter((e) => e.reason === "SuccessfulCreate" && e.involvedObject.name === "web");
        return found.length >= 2 ? found : undefined;
      },
      { timeoutMs: 10_000 },
    );
    assert.ok(events.length >= 2);

    for (const name of SERVICES) {
      const child = t.stack.service(name);
      assert.equal(child.pid, pids.get(name), `${name} was restarted (it died)`);
    }
  });
});
