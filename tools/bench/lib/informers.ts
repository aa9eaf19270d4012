// Shared informers as kube-controller-manager runs them for the StatefulSet controller: client-node's ListWatch
// (list, then watch from the list's resourceVersion, relist on 410) across all namespaces, for the kinds asked
// (the baseline watches StatefulSets, Pods, PVCs and ControllerRevisions; the floor only sets and pods). Lists go through the raw JSON client so objects keep the API
// server's exact form (the planner reads RFC 3339 strings, not Dates).
import { ListWatch } from "@kubernetes/client-node";
import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import type { ObjectEnvelope, ObjectKind, KubeObject } from "#protocol";
import { RESOURCES, resourcePath } from "../../../services/common/src/kube.ts";
import type { KubeClient, ResourceRef } from "../../../services/common/src/kube.ts";

const REFS: Readonly<Record<ObjectKind, ResourceRef>> = {
  StatefulSet: RESOURCES.statefulsets,
  Pod: RESOURCES.pods,
  PersistentVolumeClaim: RESOURCES.persistentvolumeclaims,
  ControllerRevision: RESOURCES.controllerrevisions,
};

export interface Informers {
  /** Resolves once every informer has listed (upstream WaitForCacheSync). */
  readonly synced: Promise<void>;
  /** The newest resourceVersion the informer of this kind has seen (upstream LastSyncResourceVersion). */
  lastResourceVersion(kind: ObjectKind): number;
  stop(): Promise<void>;
}

function envelopeOf(kind: ObjectKind, object: KubernetesObject, deleted: boolean): ObjectEnvelope | undefined {
  const meta = object.metadata;
  if (!meta?.name || !meta.namespace || !meta.uid || !meta.resourceVersion) return undefined;
  const identity = { kind, namespace: meta.namespace, name: meta.name, uid: meta.uid, resourceVersion: meta.resourceVersion };
  return deleted ? { type: "object.delete", ...identity } : { type: "object.put", ...identity, object: object as KubeObject };
}

export function startInformers(
  kube: KubeClient,
  kinds: readonly ObjectKind[],
  onChange: (envelope: ObjectEnvelope) => void,
  onError: (error: unknown) => void,
): Informers {
  const informers = new Map<ObjectKind, ListWatch<KubernetesObject>>();
  const syncs: Promise<void>[] = [];
  let stopped = false;
  for (const kind of kinds) {
    const ref = REFS[kind];
    let markSynced: () => void = () => undefined;
    syncs.push(new Promise((resolve) => (markSynced = resolve)));
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const result = await kube.list<KubernetesListObject<KubernetesObject>>(ref);
      // ListWatch applies the items right after this promise settles.
      setImmediate(markSynced);
      return result;
    };
    const informer = new ListWatch<KubernetesObject>(resourcePath(ref), kube.newWatch(), list, false);
    const forward = (deleted: boolean) => (object: KubernetesObject) => {
      const envelope = envelopeOf(kind, object, deleted);
      if (envelope) onChange(envelope);
    };
    informer.on("add", forward(false));
    informer.on("update", forward(false));
    informer.on("delete", forward(true));
    informer.on("error", (error) => {
      onError(error);
      // ListWatch stops after an error it does not handle itself; upstream's reflector backs off and relists.
      if (!stopped) setTimeout(() => void informer.start().catch(onError), 1_000);
    });
    informers.set(kind, informer);
  }
  for (const informer of informers.values()) void informer.start().catch(onError);
  return {
    synced: Promise.all(syncs).then(() => undefined),
    lastResourceVersion(kind) {
      const rv = Number(informers.get(kind)?.latestResourceVersion() ?? "");
      return Number.isFinite(rv) ? rv : 0;
    },
    async stop() {
      stopped = true;
      await Promise.all([...informers.values()].map((informer) => informer.stop()));
    },
  };
}
