// apps/v1 StatefulSet defaulting (pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet and the generated
// defaulters for its template and volumeClaimTemplates), plus the strategy's feature-gate field dropping.

import { ensureObject, get, getObject, isObject, objectsIn, remove, set, setDefault, setDefaultString, type JsonObject } from "../json.ts";
import type { FeatureGates } from "../options.ts";
import { defaultPodTemplate } from "./pod.ts";
import { defaultClaim } from "./storage.ts";

export function defaultStatefulSet(sts: JsonObject, gates: FeatureGates): void {
  const spec = ensureObject(sts, "spec");
  setDefaultString(spec, "podManagementPolicy", "OrderedReady");
  const strategy = ensureObject(spec, "updateStrategy");
  const type = get(strategy, "type");
  if (type === undefined || type === null || type === "") {
    set(strategy, "type", "RollingUpdate");
    // Only an empty type creates the struct; an explicit RollingUpdate without it stays without it.
    if (!isObject(get(strategy, "rollingUpdate"))) set(strategy, "rollingUpdate", {});
  }
  const rollingUpdate = getObject(strategy, "rollingUpdate");
  if (get(strategy, "type") === "RollingUpdate" && rollingUpdate !== undefined) {
    setDefault(rollingUpdate, "partition", 0);
    if (gates.MaxUnavailableStatefulSet) setDefault(rollingUpdate, "maxUnavailable", 1);
  }
  const retention = ensureObject(spec, "persistentVolumeClaimRetentionPolicy");
  setDefaultString(retention, "whenDeleted", "Retain");
  setDefaultString(retention, "whenScaled", "Retain");
  setDefault(spec, "replicas", 1);
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultPodTemplate(ensureObject(spec, "template"));
  for (const claim of objectsIn(get(spec, "volumeClaimTemplates"))) {
    // The apps/v1 encoding writes the embedded claim's TypeMeta.
    set(claim, "apiVersion", "v1");
    set(claim, "kind", "PersistentVolumeClaim");
    defaultClaim(claim);
  }
}

function usesMaxUnavailable(sts: JsonObject | undefined): boolean {
  const value = get(getObject(getObject(getObject(sts, "spec"), "updateStrategy"), "rollingUpdate"), "maxUnavailable");
  return value !== undefined && value !== null;
}

/** dropStatefulSetDisabledFields: a disabled gate drops maxUnavailable unless the old object used it. */
export function dropDisabledStatefulSetFields(sts: JsonObject, old: JsonObject | undefined, gates: FeatureGates): void {
  if (gates.MaxUnavailableStatefulSet || usesMaxUnavailable(old)) return;
  const rollingUpdate = getObject(getObject(getObject(sts, "spec"), "updateStrategy"), "rollingUpdate");
  if (rollingUpdate !== undefined) remove(rollingUpdate, "maxUnavailable");
}
