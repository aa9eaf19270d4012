// `kubectl explain` of the kinds besides StatefulSet (descriptions-core.ts), the `required` lists it marks, and the
// ETag of /openapi/v2 that kubectl's cache revalidates with If-None-Match.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { findKubectl, simWithKubectl } from "../testing/kubectl.ts";
import { definitionDoc, fieldDoc } from "./descriptions.ts";
import { OPENAPI_V2_PROTOBUF } from "./media.ts";

const binary = findKubectl();
const skip = binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false;

/** kubectl's output with its line wrapping and indentation undone. */
const flat = (s: string): string => s.replace(/\s+/g, " ");

const CORE = "io.k8s.api.core.v1";

describe("/openapi/v2 ETag", () => {
  let sim: KubeSim;
  before(async () => {
    sim = await startKubeSim({ port: 0 });
  });
  after(async () => {
    await sim.stop();
  });

  it("tags each representation and answers a matching If-None-Match with 304", async () => {
    const tags = new Set<string>();
    for (const accept of ["application/json", OPENAPI_V2_PROTOBUF]) {
      const first = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: accept } });
      assert.equal(first.status, 200);
      const etag = first.headers.get("etag") ?? "";
      assert.match(etag, /^"[0-9A-F]{128}"$/, "a quoted SHA-512, as kube-openapi writes it");
      assert.equal(first.headers.get("vary"), "Accept");
      await first.arrayBuffer();
      tags.add(etag);
      const again = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: accept, "If-None-Match": etag } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), etag);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
      for (const header of [`W/${etag}`, `"other", ${etag}`, "*"]) {
        assert.equal((await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: accept, "If-None-Match": header } })).status, 304, header);
      }
      const stale = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: accept, "If-None-Match": '"0"' } });
      assert.equal(stale.status, 200);
      assert.ok((await stale.arrayBuffer()).byteLength > 0);
    }
    assert.equal(tags.size, 2, "JSON and protobuf are different bytes, so different tags");
    // The tag is of the bytes: a restarted simulator serving the same document gives the same one.
    const other = await startKubeSim({ port: 0 });
    try {
      const res = await fetch(`${other.url}/openapi/v2`, { headers: { Accept: "application/json" } });
      await res.arrayBuffer();
      assert.ok(tags.has(res.headers.get("etag") ?? ""));
    } finally {
      await other.stop();
    }
  });
});

describe("kubectl 1.32 explain of the other served kinds", { skip }, () => {
  const env = simWithKubectl("kube-sim-explain-", binary);

  it("explain pod.spec.containers prints the containers' documentation and marks name required", async () => {
    const out = await env.kubectl.ok(["explain", "pod.spec.containers"]);
    assert.match(out, /^KIND: {7}Pod$/m);
    assert.match(out, /^FIELD: containers <\[\]Container>$/m);
    const text = flat(out);
    assert.ok(text.includes(flat(fieldDoc(`${CORE}.PodSpec`, "containers")?.description ?? "?")), out);
    assert.ok(text.includes(flat(definitionDoc(`${CORE}.Container`)?.description ?? "?")), out);
    assert.match(out, /^ {2}name\t<string> -required-$/m);
    assert.match(out, /^ {2}imagePullPolicy\t<string>\n {2}enum: Always, IfNotPresent, Never$/m);
    for (const field of ["image", "ports", "env", "resources", "readinessProbe", "livenessProbe", "startupProbe", "volumeMounts"]) {
      assert.ok(text.includes(flat(fieldDoc(`${CORE}.Container`, field)?.description ?? "?")), `${field}: ${out}`);
    }
    assert.doesNotMatch(out, /<no description>|<empty>/);
    const probe = flat(await env.kubectl.ok(["explain", "pod.spec.containers.readinessProbe"]));
    for (const field of ["periodSeconds", "failureThreshold", "httpGet"]) {
      assert.ok(probe.includes(flat(fieldDoc(`${CORE}.Probe`, field)?.description ?? "?")), `${field}: ${probe}`);
    }
  });

  it("explain pvc.spec prints the claim spec's documentation", async () => {
    const out = await env.kubectl.ok(["explain", "pvc.spec"]);
    assert.match(out, /^KIND: {7}PersistentVolumeClaim$/m);
    assert.match(out, /^FIELD: spec <PersistentVolumeClaimSpec>$/m);
    const text = flat(out);
    assert.ok(text.includes(flat(fieldDoc(`${CORE}.PersistentVolumeClaim`, "spec")?.description ?? "?")), out);
    for (const field of ["accessModes", "resources", "storageClassName", "volumeMode", "volumeName"]) {
      assert.ok(text.includes(flat(fieldDoc(`${CORE}.PersistentVolumeClaimSpec`, field)?.description ?? "?")), `${field}: ${out}`);
    }
    assert.match(out, /^ {2}volumeMode\t<string>\n {2}enum: Block, Filesystem$/m);
    assert.doesNotMatch(out, /<no description>|<empty>/);
  });

  it("explain of the other kinds' top levels prints their descriptions, and pod.spec marks containers required", async () => {
    for (const [args, definition] of [
      [["pod"], `${CORE}.Pod`],
      [["namespace"], `${CORE}.Namespace`],
      [["configmap"], `${CORE}.ConfigMap`],
      [["service.spec"], `${CORE}.ServiceSpec`],
      [["node"], `${CORE}.Node`],
      [["pv"], `${CORE}.PersistentVolume`],
      [["events", "--api-version=v1"], `${CORE}.Event`],
      [["events", "--api-version=events.k8s.io/v1"], "io.k8s.api.events.v1.Event"],
      [["lease"], "io.k8s.api.coordination.v1.Lease"],
      [["controllerrevision"], "io.k8s.api.apps.v1.ControllerRevision"],
    ] as const) {
      const out = await env.kubectl.ok(["explain", ...args]);
      assert.ok(flat(out).includes(flat(definitionDoc(definition)?.description ?? "?")), `${args.join(" ")}: ${out}`);
      assert.doesNotMatch(out, /<no description>|<empty>/, args.join(" "));
    }
    const spec = await env.kubectl.ok(["explain", "pod.spec"]);
    assert.match(spec, /^ {2}containers\t<\[\]Container> -required-$/m);
    assert.match(flat(await env.kubectl.ok(["explain", "pod.status.phase"])), /FIELD: phase <string> ENUM: Failed Pending Running Succeeded Unknown DESCRIPTION: /);
  });
});
