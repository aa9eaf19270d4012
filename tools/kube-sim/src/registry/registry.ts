// Generic REST semantics over the store, like k8s.io/apiserver's registry/generic Store: defaulting and
// validation through api/, optimistic concurrency, finalizers, graceful deletion and deletion policies.
// The HTTP layer and the in-process controllers (GC, kubelet) both write through here.
import type { Clock } from "../clock.ts";
import { newUid, randomSuffix, rfc3339 } from "../clock.ts";
import {
  MODIFIED_CONFLICT,
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  gone,
  notFound,
} from "../errors.ts";
import { rootModel, unknownFields } from "../openapi/models.ts";
import type { ResourceInfo } from "../resources.ts";
import {
  PatchError,
  applyPatch,
  canonicalize,
  decodeError,
  findByKind,
  groupVersion,
  scaleOf,
  storageFieldSelector,
  toStorage,
  unsupportedPatchMediaType,
  viewJson,
  invalidStatus,
  mustFind,
  prepareForCreate,
  prepareForUpdate,
  resourceKey,
  validateCreate,
  validateUpdate,
} from "../resources.ts";
import { selectableFields } from "../store/fields.ts";
import type { FieldRequirement, LabelRequirement } from "../store/selectors.ts";
import {
  SelectorParseError,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from "../store/selectors.ts";
import type { Store, StoredEntry } from "../store/store.ts";
import { lowerBound } from "../store/store.ts";
import type { JsonObject } from "../patch/json.ts";
import type { Cause, KubeObject } from "../types.ts";
import { clone, getPath, isRecord } from "../types.ts";
import type { ManagedFieldsEntry } from "../apply/index.ts";
import { ApplyConflictError, ApplyTypeError, applyToObject, setManagedFields, trackCreate, trackScale, trackUpdate } from "../apply/index.ts";
import { ServiceIpAllocator, admitCreate } from "./admission.ts";
import type { DeleteOptions, FieldValidation, ListOptions, PropagationPolicy, WriteOptions } from "./options.ts";

export type PatchType = "json" | "merge" | "strategic";

/** Who is writing, for faults and warnings; the HTTP layer fills it from the request. */
export interface WriteContext extends WriteOptions {
  /** Warnings returned to the client as `Warning: 299 - "..."` headers. */
  warnings: string[];
  /** Writes by the simulator's own controllers; faults never hit them. */
  internal?: boolean;
  /**
   * The field manager (the `fieldManager` parameter, else the User-Agent's prefix) whose changes managedFields
   * record. Unset for the simulator's own controllers, which write as storage does: managedFields unchanged.
   */
  fieldManager?: string;
}

export const INTERNAL_WRITE: WriteContext = { dryRun: false, fieldValidation: "Ignore", warnings: [], internal: true };

export interface RegistryHooks {
  /** True to fail this conditional write with a 409, as `--conflict-rate` asks. */
  injectConflict(): boolean;
}

export interface ListResult {
  entries: StoredEntry[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface DeleteResult {
  object: KubeObject;
  /** False while finalizers or a grace period keep the object. */
  deleted: boolean;
}

/** Namespaces the apiserver creates at start and refuses to delete. */
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"] as const;
const UNDELETABLE_NAMESPACES = new Set(["default", "kube-system", "kube-public"]);

/** Types whose DELETE answers with the object, not a Status (their REST storage sets ReturnDeletedObject). */
const RETURNS_DELETED_OBJECT = new Set(["/pods", "/services", "/namespaces", "/persistentvolumes", "/persistentvolumeclaims", "/nodes"]);
/** Types whose PUT creates a missing object (AllowCreateOnUpdate). */
const CREATE_ON_UPDATE = new Set(["coordination.k8s.io/leases", "/events", "events.k8s.io/events", "/nodes"]);

export const FINALIZER_ORPHAN = "orphan";
export const FINALIZER_FOREGROUND = "foregroundDeletion";

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export class Registry {
  readonly store: Store;
  private readonly clock: Clock;
  private readonly hooks: RegistryHooks;
  private readonly serviceIps = new ServiceIpAllocator();

  constructor(store: Store, clock: Clock, hooks: RegistryHooks) {
    this.store = store;
    this.clock = clock;
    this.hooks = hooks;
  }

  now(): Date {
    return this.clock.now();
  }

  // ---- reads ----

  getEntry(info: ResourceInfo, namespace: string, name: string): StoredEntry {
    const entry = this.store.get(resourceKey(info), info.namespaced ? namespace : "", name);
    if (entry === undefined) throw notFound(info, name);
    return entry;
  }

  get(info: ResourceInfo, namespace: string, name: string): KubeObject {
    return JSON.parse(viewJson(info, this.getEntry(info, namespace, name).json)) as KubeObject;
  }

  tryGet(info: ResourceInfo, namespace: string, name: string): KubeObject | undefined {
    const entry = this.store.get(resourceKey(info), info.namespaced ? namespace : "", name);
    return entry === undefined ? undefined : (JSON.parse(viewJson(info, entry.json)) as KubeObject);
  }

  /** Parses selectors into a predicate over stored entries; bad selectors are 400s. */
  matcher(info: ResourceInfo, labelSelector: string, fieldSelector: string): { matches: (e: StoredEntry) => boolean; selective: boolean } {
    let labels: LabelRequirement[];
    let fields: FieldRequirement[];
    try {
      labels = parseLabelSelector(labelSelector);
      fields = parseFieldSelector(storageFieldSelector(info, fieldSelector), selectableFields(resourceKey(info)));
    } catch (err) {
      if (err instanceof SelectorParseError) throw badRequest(err.message);
      throw err;
    }
    if (labels.length === 0 && fields.length === 0) return { matches: () => true, selective: false };
    return {
      matches: (e) => matchesLabels(labels, e.labels) && matchesFields(fields, e.fields),
      selective: true,
    };
  }

  list(info: ResourceInfo, namespace: string | undefined, opts: ListOptions): ListResult {
    const key = resourceKey(info);
    const { matches, selective } = this.matcher(info, opts.labelSelector, opts.fieldSelector);
    let rv = this.store.currentRv;
    let startKey = "";
    if (opts.continueToken !== "") {
      const token = decodeContinue(opts.continueToken);
      rv = token.rv;
      startKey = token.start;
    } else if (opts.resourceVersionMatch === "Exact" && opts.resourceVersion !== "" && Number(opts.resourceVersion) !== rv) {
      throw gone(`too old resource version: ${opts.resourceVersion} (${rv})`);
    }
    const ns = info.namespaced ? namespace : undefined;
    const keys = this.store.keys(key, ns);
    let index = startKey === "" ? 0 : lowerBound(keys, startKey);
    const entries: StoredEntry[] = [];
    const limit = opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
    for (; index < keys.length && entries.length < limit; index++) {
      const entry = this.store.getByKey(key, keys[index] ?? "");
      if (entry !== undefined && matches(entry)) entries.push(entry);
    }
    const result: ListResult = { entries, resourceVersion: String(rv) };
    if (entries.length >= limit && index < keys.length) {
      // Only a page that really has more matches gets a token, as etcd's paging does.
      let more = false;
      for (let probe = index; probe < keys.length; probe++) {
        const e = this.store.getByKey(key, keys[probe] ?? "");
        if (e !== undefined && matches(e)) {
          more = true;
          break;
        }
      }
      if (more) {
        const last = entries[entries.length - 1];
        result.continueToken = encodeContinue({ v: "meta.k8s.io/v1", rv, start: `${last?.key ?? ""}\u0000` });
        if (!selective) result.remainingItemCount = keys.length - index;
      }
    }
    return result;
  }

  // ---- writes ----

  /** `applied`: the managedFields of a server-side apply that creates the object (instead of an Update entry). */
  create(info: ResourceInfo, namespace: string, body: unknown, ctx: WriteContext, applied?: ManagedFieldsEntry[]): KubeObject {
    const obj = this.decode(info, body, ctx, "create");
    const meta = obj.metadata;
    if (info.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    if ((meta.name === undefined || meta.name === "") && typeof meta.generateName === "string" && meta.generateName !== "") {
      meta.name = `${meta.generateName}${randomSuffix()}`;
    }
    const name = meta.name ?? "";
    if (info.namespaced) this.ensureNamespaceWritable(info, namespace, name);
    meta.uid = newUid();
    meta.creationTimestamp = rfc3339(this.now());
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    delete meta.generation;
    let prepared = prepareForCreate(info, obj);
    prepared = admitCreate(this.serviceIps, info, prepared);
    if (applied !== undefined) setManagedFields(prepared, applied);
    else if (ctx.fieldManager !== undefined) trackCreate(info, body, prepared, ctx.fieldManager, rfc3339(this.now()));
    const causes: Cause[] = validateCreate(info, prepared);
    if (name === "" && !causes.some((c) => c.field === "metadata.name")) {
      causes.unshift({ reason: "FieldValueRequired", message: "Required value: name or generateName is required", field: "metadata.name" });
    }
    if (causes.length > 0) throw new StatusError(invalidStatus(info, name, causes));
    prepared = canonicalize(info, prepared) as KubeObject;
    if (this.store.get(resourceKey(info), meta.namespace ?? "", name) !== undefined) throw alreadyExists(info, name);
    if (ctx.dryRun) return prepared;
    return this.persist(info, prepared);
  }

  /** Stores a new state written through `info` and returns it as `info` serves it. */
  private persist(info: ResourceInfo, obj: KubeObject): KubeObject {
    const stored = toStorage(info, obj);
    const entry = this.store.put(resourceKey(info), stored);
    // The store keeps only the bytes, so the object it stamped with the new resourceVersion is ours to return.
    return stored === obj ? obj : (JSON.parse(viewJson(info, entry.json)) as KubeObject);
  }

  /** Removes an object whose last state, written through `info`, is `obj`. */
  private drop(info: ResourceInfo, obj: KubeObject): KubeObject {
    const stored = toStorage(info, obj);
    const entry = this.store.remove(resourceKey(info), stored);
    return entry === undefined || stored === obj ? obj : (JSON.parse(viewJson(info, entry.json)) as KubeObject);
  }

  /** PUT: replaces the object (or a subresource's part of it). */
  update(info: ResourceInfo, namespace: string, name: string, sub: string, body: unknown, ctx: WriteContext): { object: KubeObject; created: boolean } {
    if (sub === "scale") return { object: this.updateScale(info, namespace, name, body, ctx, undefined), created: false };
    const obj = this.decode(info, body, ctx, "update");
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
    if (info.namespaced) {
      if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== "" && obj.metadata.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      obj.metadata.namespace = namespace;
    }
    const current = this.tryGet(info, namespace, name);
    if (current === undefined) {
      if (sub === "" && CREATE_ON_UPDATE.has(resourceKey(info))) {
        return { object: this.create(info, namespace, obj, ctx), created: true };
      }
      throw notFound(info, name);
    }
    return { object: this.commitUpdate(info, sub, obj, current, ctx, explicitRv(obj)), created: false };
  }

  patch(info: ResourceInfo, namespace: string, name: string, sub: string, type: PatchType, patchBody: unknown, ctx: WriteContext): KubeObject {
    const current = this.tryGet(info, namespace, name);
    if (current === undefined) throw notFound(info, name);
    if (sub === "scale") {
      const scale = scaleOf(current);
      const patched = this.runPatch(type, scale, patchBody, { apiVersion: "autoscaling/v1", kind: "Scale" });
      return this.updateScale(info, namespace, name, patched, ctx, current);
    }
    const patched = this.runPatch(type, clone(current), patchBody, { apiVersion: groupVersion(info), kind: info.kind });
    if (!isRecord(patched)) throw badRequest("the patched object is not a JSON object");
    const obj = this.decode(info, patched, ctx, "patch");
    if (obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name ?? ""}) does not match the name on the URL (${name})`);
    if (info.namespaced) obj.metadata.namespace = namespace;
    const rvChanged = obj.metadata.resourceVersion !== current.metadata.resourceVersion;
    return this.commitUpdate(info, sub, obj, current, ctx, rvChanged || patchSetsRv(patchBody));
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`): `config` merged into the live object with structured
   * merge semantics, conflicts with other managers checked (409 unless `force`), the result defaulted,
   * validated and stored like any update; a missing object is created (only through the main resource).
   */
  apply(info: ResourceInfo, namespace: string, name: string, sub: string, config: unknown, force: boolean, ctx: WriteContext & { fieldManager: string }): { object: KubeObject; created: boolean } {
    if (!isRecord(config)) throw badRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}");
    const gv = groupVersion(info);
    if (config["apiVersion"] !== gv || config["kind"] !== info.kind) {
      const av = typeof config["apiVersion"] === "string" ? config["apiVersion"] : "";
      const slash = av.indexOf("/");
      const gvk = `${slash < 0 ? "" : av.slice(0, slash)}/${slash < 0 ? av : av.slice(slash + 1)}, Kind=${typeof config["kind"] === "string" ? config["kind"] : ""}`;
      throw badRequest(`invalid object type: ${gvk}`);
    }
    const meta = config["metadata"];
    if (meta !== undefined && !isRecord(meta)) throw badRequest(`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${typeof meta} into Go struct field ${info.kind}.metadata of type v1.ObjectMeta`);
    if (isRecord(meta) && meta["managedFields"] !== undefined && meta["managedFields"] !== null) throw badRequest("metadata.managedFields must be nil");
    if (sub === "scale") throw new StatusError(unsupportedPatchMediaType().toStatus());
    const current = this.tryGet(info, namespace, name);
    if (current === undefined && sub !== "") throw notFound(info, name);
    let result;
    try {
      result = applyToObject(info, sub, current, config as JsonObject, ctx.fieldManager, force, rfc3339(this.now()));
    } catch (err) {
      if (err instanceof ApplyConflictError) {
        throw new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: err.message, reason: "Conflict", details: { causes: err.causes() }, code: 409 });
      }
      // A configuration the schema rejects is an internal error upstream (ErrorToAPIStatus: no reason).
      if (err instanceof ApplyTypeError) throw new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: err.message, code: 500 });
      throw err;
    }
    const obj = this.decode(info, result.object, ctx, "patch");
    const objName = obj.metadata.name ?? "";
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    if (info.namespaced) {
      if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== "" && obj.metadata.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      obj.metadata.namespace = namespace;
    }
    const entries = result.managedFields ?? [];
    if (current === undefined) return { object: this.create(info, namespace, obj, ctx, entries), created: true };
    const rvGiven = typeof getPath(config, ["metadata", "resourceVersion"]) === "string";
    return { object: this.commitUpdate(info, sub, obj, current, ctx, rvGiven, entries), created: false };
  }

  private runPatch(type: PatchType, target: unknown, patchBody: unknown, gvk: { apiVersion: string; kind: string }): unknown {
    try {
      return applyPatch(type, target, patchBody, gvk);
    } catch (err) {
      if (err instanceof PatchError) throw new StatusError(err.toStatus());
      throw err;
    }
  }

  /**
   * The write half of update and patch: preconditions, strategy, managedFields, validation, no-op detection,
   * store. `applied` carries the managedFields a server-side apply computed (they replace the Update entry).
   */
  private commitUpdate(info: ResourceInfo, sub: string, obj: KubeObject, current: KubeObject, ctx: WriteContext, conditional: boolean, applied?: ManagedFieldsEntry[] | "keep"): KubeObject {
    const name = current.metadata.name ?? "";
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== "" && rv !== current.metadata.resourceVersion) throw conflict(info, name, MODIFIED_CONFLICT);
    if (conditional && ctx.internal !== true && this.hooks.injectConflict()) throw conflict(info, name, MODIFIED_CONFLICT);
    if (obj.metadata.uid !== undefined && obj.metadata.uid !== "" && obj.metadata.uid !== current.metadata.uid) {
      throw conflict(info, name, `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${current.metadata.uid ?? ""}`);
    }
    const meta = obj.metadata;
    const old = current.metadata;
    meta.uid = old.uid ?? "";
    meta.creationTimestamp = old.creationTimestamp ?? null;
    meta.resourceVersion = old.resourceVersion ?? "";
    if (old.deletionTimestamp !== undefined) meta.deletionTimestamp = old.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (old.generation !== undefined) meta.generation = old.generation;
    else delete meta.generation;
    if (sub === "status") {
      // Status writes cannot change metadata other than what the strategy allows (labels, annotations...).
      meta.finalizers = old.finalizers;
      meta.ownerReferences = old.ownerReferences;
      if (meta.finalizers === undefined) delete meta.finalizers;
      if (meta.ownerReferences === undefined) delete meta.ownerReferences;
    }
    if (old.deletionTimestamp !== undefined) {
      const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw new StatusError(
          invalidStatus(info, name, [
            { reason: "FieldValueForbidden", message: "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{" + added.map((f) => JSON.stringify(f)).join(", ") + "}", field: "metadata.finalizers" },
          ]),
        );
      }
    }
    const prepared = prepareForUpdate(info, sub, obj, current);
    if (applied === "keep") {
      // The caller set them on `obj` (scale), and the strategy keeps obj's metadata.
    } else if (applied !== undefined) setManagedFields(prepared, applied);
    else if (ctx.fieldManager !== undefined) trackUpdate(info, sub, current, obj, prepared, ctx.fieldManager, rfc3339(this.now()));
    const causes: Cause[] = validateUpdate(info, sub, prepared, current);
    if (causes.length > 0) throw new StatusError(invalidStatus(info, name, causes));
    if (JSON.stringify(prepared) === JSON.stringify(current)) return current;
    if (ctx.dryRun) return prepared;
    if (prepared.metadata.deletionTimestamp !== undefined && (prepared.metadata.finalizers ?? []).length === 0 && !gracefullyPending(info, prepared)) {
      return this.drop(info, prepared);
    }
    return this.persist(info, prepared);
  }

  /**
   * Writes a new state of an existing object as a controller with direct storage access would (the
   * scheduler's binding, the kubelet's status): no strategy, no validation, but still a new
   * resourceVersion and the finalizer/deletion rules. Returns undefined when the object is gone.
   */
  writeInternal(info: ResourceInfo, obj: KubeObject): KubeObject | undefined {
    const key = resourceKey(info);
    const current = this.store.get(key, obj.metadata.namespace ?? "", obj.metadata.name ?? "");
    if (current === undefined || current.uid !== obj.metadata.uid) return undefined;
    if (JSON.stringify(obj) === current.json) return obj;
    if (obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).length === 0 && !gracefullyPending(info, obj)) {
      this.store.remove(key, obj);
      return undefined;
    }
    return JSON.parse(this.store.put(key, obj).json) as KubeObject;
  }

  /**
   * Loads objects recorded from another API server, stored as given: no defaulting, validation or admission, status
   * and managedFields kept, resourceVersions kept (Store.seed's rules); a missing uid or creationTimestamp is filled
   * in as a create would. For tests that start from a cluster another controller wrote (`startKubeSim({ seed })`,
   * `--seed FILE`). A namespaced object's namespace must exist or be seeded with it. Throws, storing nothing, on an
   * object the simulator does not serve or whose key exists.
   */
  seed(objects: readonly unknown[]): KubeObject[] {
    const nsKey = resourceKey(mustFind("", "namespaces"));
    const seededNamespaces = new Set<string>();
    const typed = objects.map((raw, i) => {
      if (!isRecord(raw) || !isRecord(raw["metadata"])) throw new Error(`seed: object ${i} is not a Kubernetes object with metadata`);
      const apiVersion = typeof raw["apiVersion"] === "string" ? raw["apiVersion"] : "";
      const kind = typeof raw["kind"] === "string" ? raw["kind"] : "";
      const info = findByKind(apiVersion, kind);
      if (info === undefined) throw new Error(`seed: object ${i}: ${apiVersion} ${kind} is not served by the simulator`);
      const obj = clone(raw as KubeObject);
      const meta = obj.metadata;
      if (info.namespaced !== (typeof meta.namespace === "string" && meta.namespace !== "")) {
        throw new Error(`seed: ${kind} ${meta.name ?? ""}: ${info.namespaced ? "a namespaced kind needs" : "a cluster-scoped kind takes no"} metadata.namespace`);
      }
      meta.uid ??= newUid();
      meta.creationTimestamp ??= rfc3339(this.now());
      if (resourceKey(info) === nsKey && meta.name !== undefined) seededNamespaces.add(meta.name);
      return { info, obj };
    });
    for (const { info, obj } of typed) {
      const ns = obj.metadata.namespace;
      if (info.namespaced && ns !== undefined && !seededNamespaces.has(ns) && this.store.get(nsKey, "", ns) === undefined) {
        throw new Error(`seed: ${info.kind} ${ns}/${obj.metadata.name ?? ""}: namespace ${ns} neither exists nor is seeded`);
      }
    }
    const entries = this.store.seed(typed.map(({ info, obj }) => ({ resourceKey: resourceKey(info), obj: toStorage(info, obj) })));
    return entries.map((entry) => JSON.parse(entry.json) as KubeObject);
  }

  // ---- scale subresource ----

  getScale(info: ResourceInfo, namespace: string, name: string): KubeObject {
    return scaleOf(this.get(info, namespace, name));
  }

  private updateScale(info: ResourceInfo, namespace: string, name: string, body: unknown, ctx: WriteContext, known: KubeObject | undefined): KubeObject {
    if (!isRecord(body)) throw badRequest("the body of the request is not a Scale object");
    const current = known ?? this.tryGet(info, namespace, name);
    if (current === undefined) throw notFound(info, name);
    const scale = body as KubeObject;
    const replicas = getPath(scale, ["spec", "replicas"]);
    if (replicas !== undefined && (typeof replicas !== "number" || !Number.isInteger(replicas))) {
      throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
    }
    const causes: Cause[] = validateUpdate(info, "scale", scale, current);
    if (causes.length > 0) throw new StatusError(invalidStatus(info, name, causes, "scale"));
    const rv = getPath(scale, ["metadata", "resourceVersion"]) as string | undefined;
    const next = clone(current);
    (next["spec"] as Record<string, unknown>)["replicas"] = replicas ?? 0;
    if (rv !== undefined && rv !== "") next.metadata.resourceVersion = rv;
    // The Scale's managers are translated to and from the parent's (ScaleHandler), not computed on the parent.
    if (ctx.fieldManager !== undefined) trackScale(info, current, next, ctx.fieldManager, rfc3339(this.now()));
    const updated = this.commitUpdate(info, "", next, current, ctx, rv !== undefined && rv !== "", "keep");
    return scaleOf(updated);
  }

  // ---- deletes ----

  delete(info: ResourceInfo, namespace: string, name: string, opts: DeleteOptions, ctx: WriteContext): DeleteResult {
    const current = this.tryGet(info, namespace, name);
    if (current === undefined) throw notFound(info, name);
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== current.metadata.uid) {
      throw conflict(info, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ""}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(info, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ""}`);
    }
    if (info.resource === "namespaces" && info.group === "") return this.deleteNamespace(info, current, ctx);
    const dryRun = ctx.dryRun || (opts.dryRun?.length ?? 0) > 0;
    const next = clone(current);
    const meta = next.metadata;
    const now = this.now();
    let changed = false;

    // Graceful deletion (pods bound to a node that have not finished).
    let grace = 0;
    if (info.resource === "pods" && info.group === "") grace = this.podGracePeriod(current, opts);
    if (grace > 0) {
      const pendingGrace = meta.deletionGracePeriodSeconds;
      if (meta.deletionTimestamp === undefined || pendingGrace === undefined || grace < pendingGrace) {
        meta.deletionTimestamp = rfc3339(new Date(now.getTime() + grace * 1000));
        meta.deletionGracePeriodSeconds = grace;
        changed = true;
      }
    } else if (meta.deletionTimestamp !== undefined && meta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds > 0) {
      meta.deletionGracePeriodSeconds = 0;
      changed = true;
    }

    // Deletion policy finalizers for the garbage collector.
    const policy = deletionPolicy(opts);
    const finalizers = new Set(meta.finalizers ?? []);
    const before = finalizers.size + [...finalizers].join(",");
    if (policy === "Orphan") {
      finalizers.delete(FINALIZER_FOREGROUND);
      finalizers.add(FINALIZER_ORPHAN);
    } else if (policy === "Foreground") {
      finalizers.delete(FINALIZER_ORPHAN);
      finalizers.add(FINALIZER_FOREGROUND);
    } else if (policy === "Background") {
      finalizers.delete(FINALIZER_ORPHAN);
      finalizers.delete(FINALIZER_FOREGROUND);
    }
    if (finalizers.size + [...finalizers].join(",") !== before) {
      changed = true;
      if (finalizers.size > 0) meta.finalizers = [...finalizers];
      else delete meta.finalizers;
    }

    if (finalizers.size > 0 || grace > 0) {
      if (meta.deletionTimestamp === undefined) {
        meta.deletionTimestamp = rfc3339(now);
        meta.deletionGracePeriodSeconds = 0;
        changed = true;
      }
      if (!changed || dryRun) return { object: next, deleted: false };
      return { object: this.persist(info, next), deleted: false };
    }
    if (dryRun) return { object: next, deleted: true };
    return { object: this.drop(info, next), deleted: true };
  }

  /** Pods strategy CheckGracefulDelete: unscheduled or finished pods go at once. */
  private podGracePeriod(pod: KubeObject, opts: DeleteOptions): number {
    const nodeName = getPath(pod, ["spec", "nodeName"]);
    const phase = getPath(pod, ["status", "phase"]);
    if (typeof nodeName !== "string" || nodeName === "" || phase === "Succeeded" || phase === "Failed") return 0;
    const specGrace = getPath(pod, ["spec", "terminationGracePeriodSeconds"]);
    return opts.gracePeriodSeconds ?? (typeof specGrace === "number" ? specGrace : 30);
  }

  private deleteNamespace(info: ResourceInfo, current: KubeObject, ctx: WriteContext): DeleteResult {
    const name = current.metadata.name ?? "";
    if (UNDELETABLE_NAMESPACES.has(name)) throw forbidden(info, name, "this namespace may not be deleted");
    if (current.metadata.deletionTimestamp !== undefined) return { object: current, deleted: false };
    const next = clone(current);
    next.metadata.deletionTimestamp = rfc3339(this.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    next["status"] = { ...(isRecord(next["status"]) ? next["status"] : {}), phase: "Terminating" };
    if (ctx.dryRun) return { object: next, deleted: false };
    const entry = this.store.put(resourceKey(info), next);
    return { object: JSON.parse(entry.json) as KubeObject, deleted: false };
  }

  /** Removes a namespace whose content is gone (the namespace controller's last step). */
  finalizeNamespace(name: string): void {
    const info = mustFind("", "namespaces");
    const current = this.tryGet(info, "", name);
    if (current === undefined) return;
    const next = clone(current);
    const spec = isRecord(next["spec"]) ? next["spec"] : {};
    delete spec["finalizers"];
    next["spec"] = spec;
    if ((next.metadata.finalizers ?? []).length > 0) {
      this.store.put(resourceKey(info), next);
      return;
    }
    this.store.remove(resourceKey(info), next);
  }

  deleteCollection(info: ResourceInfo, namespace: string | undefined, listOpts: ListOptions, opts: DeleteOptions, ctx: WriteContext): KubeObject[] {
    const { entries } = this.list(info, namespace, { ...listOpts, limit: 0, continueToken: "" });
    const out: KubeObject[] = [];
    for (const entry of entries) {
      try {
        out.push(this.delete(info, entry.namespace, entry.name, opts, ctx).object);
      } catch (err) {
        if (!(err instanceof StatusError && err.status.code === 404)) throw err;
      }
    }
    return out;
  }

  // ---- helpers ----

  /** Body checks shared by create, update and patch: a JSON object with metadata, no unknown fields. */
  private decode(info: ResourceInfo, body: unknown, ctx: WriteContext, verb: "create" | "update" | "patch"): KubeObject {
    if (!isRecord(body)) {
      throw badRequest(`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${Array.isArray(body) ? "array" : typeof body} into Go value of type struct`);
    }
    const av = body["apiVersion"];
    const kind = body["kind"];
    const gv = groupVersion(info);
    if (verb !== "patch" && typeof kind === "string" && kind !== "" && kind !== info.kind) {
      throw badRequest(`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: no kind "${kind}" is registered for version "${typeof av === "string" ? av : gv}" in scheme "pkg/api/legacyscheme/scheme.go:30"`);
    }
    if (verb !== "patch" && typeof av === "string" && av !== "" && av !== gv) {
      throw badRequest(`the API version in the data (${av}) does not match the expected API version (${gv})`);
    }
    if (body["metadata"] !== undefined && !isRecord(body["metadata"])) {
      throw badRequest(`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${typeof body["metadata"]} into Go struct field ${info.kind}.metadata of type v1.ObjectMeta`);
    }
    this.checkUnknownFields(info, body, ctx.fieldValidation, ctx.warnings, verb);
    const undecodable = decodeError(info, body);
    if (undecodable !== undefined) throw badRequest(undecodable);
    const obj = { ...body, apiVersion: gv, kind: info.kind, metadata: { ...(isRecord(body["metadata"]) ? body["metadata"] : {}) } } as KubeObject;
    return obj;
  }

  private checkUnknownFields(info: ResourceInfo, body: Record<string, unknown>, mode: FieldValidation, warnings: string[], verb: string): void {
    if (mode === "Ignore") return;
    const model = rootModel(info);
    if (model === undefined) return;
    const unknown = unknownFields(model, body);
    if (unknown.length === 0) return;
    if (mode === "Warn") {
      for (const path of unknown) warnings.push(`unknown field "${path}"`);
      return;
    }
    const detail = `strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(", ")}`;
    throw badRequest(verb === "patch" ? detail : `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${detail}`);
  }

  private ensureNamespaceWritable(info: ResourceInfo, namespace: string, name: string): void {
    const nsInfo = mustFind("", "namespaces");
    const ns = this.store.get(resourceKey(nsInfo), "", namespace);
    if (ns === undefined) throw notFound(nsInfo, namespace);
    if (ns.deleting) {
      const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
      throw forbidden(info, name, message, [{ reason: "NamespaceTerminating", message, field: "metadata.namespace" }]);
    }
  }

  /** Whether DELETE on this type answers with the object rather than a Status. */
  returnsDeletedObject(info: ResourceInfo): boolean {
    return RETURNS_DELETED_OBJECT.has(resourceKey(info));
  }
}

function explicitRv(obj: KubeObject): boolean {
  const rv = obj.metadata.resourceVersion;
  return rv !== undefined && rv !== "";
}

function patchSetsRv(patchBody: unknown): boolean {
  if (Array.isArray(patchBody)) return patchBody.some((op) => isRecord(op) && op["path"] === "/metadata/resourceVersion");
  return typeof getPath(patchBody, ["metadata", "resourceVersion"]) === "string";
}

/** A pod still inside its grace period stays until the kubelet confirms with a zero-grace delete. */
function gracefullyPending(info: ResourceInfo, obj: KubeObject): boolean {
  return info.resource === "pods" && info.group === "" && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0;
}

function deletionPolicy(opts: DeleteOptions): PropagationPolicy | undefined {
  if (opts.propagationPolicy !== undefined) return opts.propagationPolicy;
  if (opts.orphanDependents === true) return "Orphan";
  if (opts.orphanDependents === false) return "Background";
  return undefined;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString("base64url");
}

function decodeContinue(raw: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<ContinueToken>;
    if (parsed.v !== "meta.k8s.io/v1" || typeof parsed.rv !== "number" || typeof parsed.start !== "string") {
      throw new Error("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    }
    return { v: parsed.v, rv: parsed.rv, start: parsed.start };
  } catch (err) {
    throw badRequest(err instanceof Error && err.message.startsWith("continue key") ? err.message : "continue key is not valid: illegal base64 data at input byte 0");
  }
}
