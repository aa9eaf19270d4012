// The fake cluster's vocabulary: the kinds and verbs it serves, the API error clients see, failure-injection rules
// and the audit entries invariants read (cluster.ts is the store itself).

import type { ApiErrorKind, ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from "../types.ts";

export type Kind = "StatefulSet" | "Pod" | "PersistentVolumeClaim" | "ControllerRevision";
export type Verb = "create" | "update" | "patch" | "delete" | "updateStatus";

export type AnyObject = StatefulSet | Pod | PersistentVolumeClaim | ControllerRevision;

/** An API error as a client sees it; `kind` is what executors branch on. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly kind: ApiErrorKind;
  readonly status: number;

  constructor(kind: ApiErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.status = { AlreadyExists: 409, Conflict: 409, NotFound: 404, Invalid: 422, Other: 500 }[kind];
  }
}

export interface FailureRule {
  verb: Verb;
  kind: Kind;
  /** Fail the Nth matching call counted from when the rule was added (1-based). */
  nth: number;
  /** How many consecutive calls fail from the Nth on (default 1). */
  times?: number;
  error?: ApiErrorKind;
  message?: string;
}

export interface ActiveRule extends Required<Omit<FailureRule, "message">> {
  message: string;
  seen: number;
}

export interface ClusterOptions {
  /** Simulated wall clock at start (ms since epoch). */
  startMs?: number;
}

/** A write the cluster performed, in order: what invariants and tests inspect. */
export interface AuditEntry {
  seq: number;
  atMs: number;
  verb: Verb | "gc" | "kubelet";
  kind: Kind;
  namespace: string;
  name: string;
  /** The object after the write (before, for deletions). */
  object: AnyObject;
}

export interface Deletion {
  kind: Kind;
  namespace: string;
  name: string;
  uid: string;
  /** `api`: a client deleted it; `gc`: the garbage collector did, because its owners are gone. */
  by: "api" | "gc";
  atMs: number;
  object: AnyObject;
}

