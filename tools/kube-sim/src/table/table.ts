// metav1.Table responses for `kubectl get` (Accept: application/json;as=Table;v=v1;g=meta.k8s.io).
import type { KubeObject } from "../types.ts";
import { printerFor } from "./columns.ts";

export type IncludeObject = "None" | "Metadata" | "Object";

export function parseIncludeObject(raw: string | null): IncludeObject {
  return raw === "None" || raw === "Object" ? raw : "Metadata";
}

/** What `kubectl get` needs of each row's object: PartialObjectMetadata (or the whole object). */
export function partialMetadata(obj: KubeObject): KubeObject {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata };
}

export interface TableOptions {
  includeObject: IncludeObject;
  noHeaders: boolean;
  resourceVersion?: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export function toTable(resourceKey: string, objects: readonly KubeObject[], now: Date, opts: TableOptions): Record<string, unknown> {
  const printer = printerFor(resourceKey);
  const metadata: Record<string, unknown> = {};
  if (opts.resourceVersion !== undefined) metadata["resourceVersion"] = opts.resourceVersion;
  if (opts.continueToken !== undefined) metadata["continue"] = opts.continueToken;
  if (opts.remainingItemCount !== undefined) metadata["remainingItemCount"] = opts.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: opts.noHeaders ? [] : printer.columns,
    rows: objects.map((obj) => {
      const row: Record<string, unknown> = { cells: printer.row(obj, now) };
      if (opts.includeObject === "Object") row["object"] = obj;
      else if (opts.includeObject === "Metadata") row["object"] = partialMetadata(obj);
      return row;
    }),
  };
}
