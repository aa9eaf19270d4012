// List semantics the generated client models do not carry: the `patchMergeKey`/`patchStrategy` struct
// tags of k8s.io/api, taken from patch/'s strategic merge table (one source for the patch engine and the
// schemas kubectl computes its apply patches from). A list with a merge key is a map list keyed by it;
// a merged list without one is a set.
import { STRATEGIC_MERGE_STRUCTS } from "../resources.ts";

export interface ListSemantics {
  mergeKey?: string;
  strategy?: string;
  listType?: "map" | "set";
  mapKeys?: string[];
}

interface FieldMeta {
  readonly strategy?: string;
  readonly retainKeys?: true;
  readonly mergeKey?: string;
}

/** client-node model name (`V1PodSpec`, `CoreV1Event`) -> Go struct name (`PodSpec`, `Event`). */
function structName(model: string): string {
  return model.replace(/^(CoreV1|EventsV1|V1)/, "");
}

export function listSemantics(model: string, field: string): ListSemantics | undefined {
  const structs = STRATEGIC_MERGE_STRUCTS as unknown as Record<string, { fields: Record<string, FieldMeta> } | undefined>;
  const meta = structs[structName(model)]?.fields[field];
  if (meta?.strategy === undefined) return undefined;
  const strategy = meta.retainKeys === true ? `${meta.strategy},retainKeys` : meta.strategy;
  if (meta.mergeKey !== undefined) return { mergeKey: meta.mergeKey, strategy, listType: "map", mapKeys: [meta.mergeKey] };
  return { strategy, listType: "set" };
}

/**
 * The `x-kubernetes-patch-strategy` of a field that is not a list (`retainKeys` on a Deployment's `spec.strategy`,
 * `replace` on a PodDisruptionBudget's `spec.selector`), which kubectl reads to compute its patches.
 */
export function fieldPatchStrategy(model: string, field: string): string | undefined {
  const structs = STRATEGIC_MERGE_STRUCTS as unknown as Record<string, { fields: Record<string, FieldMeta> } | undefined>;
  const meta = structs[structName(model)]?.fields[field];
  if (meta === undefined) return undefined;
  if (meta.retainKeys === true) return meta.strategy === undefined ? "retainKeys" : `${meta.strategy},retainKeys`;
  return meta.strategy;
}
