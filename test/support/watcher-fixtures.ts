// Object builders for the watcher's tests: minimal API-server-shaped StatefulSets, Pods, claims and revisions.
import { parseWatchedObject } from "../../services/watcher/src/domain/objects.ts";
import type { WatchedKind, WatchedObject } from "../../services/watcher/src/domain/objects.ts";

export interface Meta {
  readonly namespace?: string;
  readonly uid?: string;
  readonly rv?: string;
  readonly labels?: Record<string, string>;
  readonly owners?: readonly { kind: string; name: string; controller?: boolean; uid?: string }[];
}

function metadata(name: string, meta: Meta): Record<string, unknown> {
  return {
    name,
    namespace: meta.namespace ?? "default",
    uid: meta.uid ?? `uid-${name}`,
    resourceVersion: meta.rv ?? "1",
    ...(meta.labels ? { labels: meta.labels } : {}),
    ...(meta.owners
      ? {
          ownerReferences: meta.owners.map((o) => ({
            apiVersion: o.kind === "StatefulSet" ? "apps/v1" : "v1",
            kind: o.kind,
            name: o.name,
            uid: o.uid ?? `uid-${o.name}`,
            ...(o.controller === undefined ? {} : { controller: o.controller }),
          })),
        }
      : {}),
    managedFields: [{ manager: "kubectl", operation: "Apply" }],
  };
}

export function rawSet(
  name: string,
  meta: Meta & { selector?: unknown; templates?: readonly string[]; replicas?: number } = {},
): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: metadata(name, meta),
    spec: {
      replicas: meta.replicas ?? 1,
      selector: meta.selector === undefined ? { matchLabels: { app: name } } : meta.selector,
      serviceName: name,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "i" }] } },
      volumeClaimTemplates: (meta.templates ?? []).map((t) => ({ metadata: { name: t }, spec: {} })),
    },
  };
}

export function rawPod(name: string, meta: Meta = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Pod", metadata: metadata(name, meta), spec: { containers: [] } };
}

export function rawClaim(name: string, meta: Meta = {}): Record<string, unknown> {
  // List items carry no TypeMeta; the watcher must fill it in.
  return { metadata: metadata(name, meta), spec: { accessModes: ["ReadWriteOnce"] } };
}

export function rawRevision(name: string, meta: Meta = {}): Record<string, unknown> {
  return { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: metadata(name, meta), revision: 1, data: {} };
}

export function watched(kind: WatchedKind, raw: unknown): WatchedObject {
  const parsed = parseWatchedObject(kind, raw);
  if (!parsed.ok) throw new Error(`fixture rejected: ${parsed.reason}: ${parsed.detail}`);
  return parsed.object;
}

export const set = (name: string, meta?: Parameters<typeof rawSet>[1]) => watched("sts", rawSet(name, meta));
export const pod = (name: string, meta?: Meta) => watched("pod", rawPod(name, meta));
export const claim = (name: string, meta?: Meta) => watched("pvc", rawClaim(name, meta));
export const revision = (name: string, meta?: Meta) => watched("rev", rawRevision(name, meta));
