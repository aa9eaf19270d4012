// Query and body options of list, watch and delete, parsed with the apiserver's error messages.
import { badRequest } from "../errors.ts";
import { isRecord } from "../types.ts";

export type FieldValidation = "Strict" | "Warn" | "Ignore";
export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  limit: number;
  continueToken: string;
  resourceVersion: string;
  resourceVersionMatch: string;
}

export interface WatchOptions {
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string;
  allowWatchBookmarks: boolean;
  timeoutSeconds: number | undefined;
  sendInitialEvents: boolean;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`invalid value for ${name}: strconv.ParseInt: parsing "${raw}": invalid syntax`);
  return Number(raw);
}

function boolParam(params: URLSearchParams, name: string): boolean {
  const raw = params.get(name);
  return raw === "true" || raw === "1";
}

export function parseListOptions(params: URLSearchParams): ListOptions {
  return {
    labelSelector: params.get("labelSelector") ?? "",
    fieldSelector: params.get("fieldSelector") ?? "",
    limit: Math.max(0, intParam(params, "limit") ?? 0),
    continueToken: params.get("continue") ?? "",
    resourceVersion: params.get("resourceVersion") ?? "",
    resourceVersionMatch: params.get("resourceVersionMatch") ?? "",
  };
}

export function parseWatchOptions(params: URLSearchParams): WatchOptions {
  return {
    labelSelector: params.get("labelSelector") ?? "",
    fieldSelector: params.get("fieldSelector") ?? "",
    resourceVersion: params.get("resourceVersion") ?? "",
    allowWatchBookmarks: boolParam(params, "allowWatchBookmarks"),
    timeoutSeconds: intParam(params, "timeoutSeconds"),
    sendInitialEvents: boolParam(params, "sendInitialEvents"),
  };
}

export function parseWriteOptions(params: URLSearchParams): WriteOptions {
  const fv = params.get("fieldValidation") ?? "";
  let fieldValidation: FieldValidation;
  switch (fv) {
    case "":
    case "Warn":
      fieldValidation = "Warn";
      break;
    case "Strict":
    case "Ignore":
      fieldValidation = fv;
      break;
    default:
      throw badRequest(`fieldValidation parameter unsupported: ${fv}`);
  }
  const dryRun = params.getAll("dryRun");
  for (const d of dryRun) if (d !== "All") throw badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
  return { dryRun: dryRun.length > 0, fieldValidation };
}

const POLICIES: readonly PropagationPolicy[] = ["Orphan", "Background", "Foreground"];

/** DeleteOptions from the body (kubectl, client-node) merged over the query parameters (curl). */
export function parseDeleteOptions(params: URLSearchParams, body: unknown): DeleteOptions {
  const out: DeleteOptions = {};
  const grace = intParam(params, "gracePeriodSeconds");
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  const policy = params.get("propagationPolicy");
  if (policy !== null && policy !== "") out.propagationPolicy = policy as PropagationPolicy;
  if (params.has("orphanDependents")) out.orphanDependents = boolParam(params, "orphanDependents");
  const dryRun = params.getAll("dryRun");
  if (dryRun.length > 0) out.dryRun = dryRun;
  if (isRecord(body)) {
    if (typeof body["gracePeriodSeconds"] === "number") out.gracePeriodSeconds = body["gracePeriodSeconds"];
    if (typeof body["propagationPolicy"] === "string") out.propagationPolicy = body["propagationPolicy"] as PropagationPolicy;
    if (typeof body["orphanDependents"] === "boolean") out.orphanDependents = body["orphanDependents"];
    if (Array.isArray(body["dryRun"])) out.dryRun = body["dryRun"].filter((d): d is string => typeof d === "string");
    const pre = body["preconditions"];
    if (isRecord(pre)) {
      out.preconditions = {};
      if (typeof pre["uid"] === "string") out.preconditions.uid = pre["uid"];
      if (typeof pre["resourceVersion"] === "string") out.preconditions.resourceVersion = pre["resourceVersion"];
    }
  }
  if (out.propagationPolicy !== undefined && !POLICIES.includes(out.propagationPolicy)) {
    throw badRequest(`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${out.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  if (out.propagationPolicy !== undefined && out.orphanDependents !== undefined) {
    throw badRequest(`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "${out.propagationPolicy}": orphanDependents and deletionPropagation cannot be both set`);
  }
  if (out.gracePeriodSeconds !== undefined && out.gracePeriodSeconds < 0) out.gracePeriodSeconds = 1;
  return out;
}
