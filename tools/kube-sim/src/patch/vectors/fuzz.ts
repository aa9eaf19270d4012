// A seeded random corpus of objects and patches for differential testing against kubectl (generate.ts). The
// generators stay inside what upstream does deterministically: Go visits map keys in random order, so a patch
// never holds both `x` and `$deleteFromPrimitiveList/x`, nor two `$setElementOrder` lists that could both be
// missing from the object and the patch.
import type { JsonObject, JsonValue } from "../json.ts";
import type { PatchCase } from "./cases.ts";

/** mulberry32: small, seedable, good enough to pick shapes. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Picker {
  private readonly random: () => number;
  constructor(random: () => number) {
    this.random = random;
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.random() * maxExclusive);
  }
  one<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** A random subset in random order, without repeats. */
  some<T>(items: readonly T[], max = items.length): T[] {
    const pool = [...items];
    const out: T[] = [];
    const count = this.int(Math.min(max, pool.length) + 1);
    for (let i = 0; i < count; i++) out.push(pool.splice(this.int(pool.length), 1)[0] as T);
    return out;
  }
}

const CONTAINER_NAMES = ["c1", "c2", "c3", "c4"];
const ENV_NAMES = ["A", "B", "C", "D"];
const PORTS = [80, 443, 8080];
const MOUNTS = ["/a", "/b", "/c"];
const VOLUMES = ["v1", "v2", "v3"];
const FINALIZERS = ["f1", "f2", "f3", "f4"];
const UIDS = ["u1", "u2", "u3"];
const LABELS = ["app", "tier", "x"];
const CONDITIONS = ["Ready", "PodScheduled", "Initialized"];

function volumeSource(pick: Picker, name: string): JsonObject {
  switch (pick.int(3)) {
    case 0:
      return { name, emptyDir: {} };
    case 1:
      return { name, hostPath: { path: `/host/${name}` } };
    default:
      return { name, configMap: { name: `cm-${name}` } };
  }
}

function randomContainer(pick: Picker, name: string): JsonObject {
  const container: JsonObject = { name, image: `${name}:${pick.int(3)}` };
  const env = pick.some(ENV_NAMES, 3);
  if (env.length > 0 || pick.chance(0.2)) container["env"] = env.map((envName) => ({ name: envName, value: String(pick.int(9)) }));
  const ports = pick.some(PORTS, 2);
  if (ports.length > 0) container["ports"] = ports.map((containerPort) => ({ containerPort, protocol: "TCP" }));
  const mounts = pick.some(MOUNTS, 2);
  if (mounts.length > 0) container["volumeMounts"] = mounts.map((mountPath) => ({ mountPath, name: "v1" }));
  if (pick.chance(0.3)) container["args"] = pick.some(["x", "y", "z"]);
  return container;
}

export function randomPod(pick: Picker): JsonObject {
  const metadata: JsonObject = { name: "p" };
  const labels = pick.some(LABELS);
  if (labels.length > 0) metadata["labels"] = Object.fromEntries(labels.map((key) => [key, String(pick.int(3))]));
  const finalizers = pick.some(FINALIZERS, 3);
  if (finalizers.length > 0 || pick.chance(0.2)) metadata["finalizers"] = finalizers;
  const owners = pick.some(UIDS, 2);
  if (owners.length > 0) metadata["ownerReferences"] = owners.map((uid) => ({ apiVersion: "apps/v1", kind: "StatefulSet", name: `o-${uid}`, uid }));

  const spec: JsonObject = { containers: pick.some(CONTAINER_NAMES, 3).map((name) => randomContainer(pick, name)) };
  const volumes = pick.some(VOLUMES);
  if (volumes.length > 0) spec["volumes"] = volumes.map((name) => volumeSource(pick, name));
  if (pick.chance(0.4)) spec["tolerations"] = pick.some(["a", "b"]).map((key) => ({ key, operator: "Exists" }));
  if (pick.chance(0.3)) spec["initContainers"] = pick.some(CONTAINER_NAMES, 2).map((name) => randomContainer(pick, `init-${name}`));
  if (pick.chance(0.3)) spec["securityContext"] = { runAsUser: 1000 };
  if (pick.chance(0.3)) spec["nodeSelector"] = { disk: "ssd" };

  const pod: JsonObject = { apiVersion: "v1", kind: "Pod", metadata, spec };
  if (pick.chance(0.5)) {
    pod["status"] = {
      phase: pick.one(["Pending", "Running"]),
      conditions: pick.some(CONDITIONS).map((type) => ({ type, status: pick.one(["True", "False"]) })),
    };
  }
  return pod;
}

/** Builds the patch for one merging list of maps (`items` are the names/keys the object may have). */
function listPatch(
  pick: Picker,
  mergeKey: string,
  keys: readonly string[] | readonly number[],
  element: (key: string | number) => JsonObject,
): JsonValue[] {
  const out: JsonValue[] = [];
  for (const key of pick.some<string | number>(keys, 3)) {
    const roll = pick.int(12);
    if (roll === 0) out.push({ [mergeKey]: key, $patch: "delete" });
    else if (roll === 1) out.push({ $patch: pick.one(["replace", "replace", "merge", "bogus"]) });
    else if (roll === 2) out.push({ ...element(key), [mergeKey]: undefined as unknown as JsonValue });
    else out.push({ ...element(key), [mergeKey]: key });
  }
  return out.map((item) => JSON.parse(JSON.stringify(item)) as JsonValue);
}

function orderFor(pick: Picker, mergeKey: string, keys: readonly string[], patchItems: JsonValue[]): JsonValue[] {
  // Usually a valid order: every patch item, in patch order, interleaved with others; sometimes shuffled.
  const fromPatch =
    mergeKey === ""
      ? patchItems.filter((item) => typeof item === "string")
      : patchItems
          .filter((item): item is JsonObject => typeof item === "object" && item !== null && !Array.isArray(item))
          .filter((item) => item[mergeKey] !== undefined && item["$patch"] === undefined)
          .map((item) => item[mergeKey] as JsonValue);
  const extra = pick.some(keys.filter((key) => !fromPatch.includes(key)));
  const order: JsonValue[] = [...fromPatch];
  for (const key of extra) order.splice(pick.int(order.length + 1), 0, key);
  if (pick.chance(0.15)) order.reverse();
  return order.map((key) => (mergeKey === "" ? key : { [mergeKey]: key }));
}

function containerPatch(pick: Picker, key: string | number): JsonObject {
  const patch: JsonObject = {};
  if (pick.chance(0.5)) patch["image"] = `${String(key)}:${pick.int(5)}`;
  if (pick.chance(0.4)) {
    const env = listPatch(pick, "name", ENV_NAMES, () => ({ value: String(pick.int(9)) }));
    patch["env"] = env;
    if (pick.chance(0.3)) patch["$setElementOrder/env"] = orderFor(pick, "name", ENV_NAMES, env);
  }
  if (pick.chance(0.25)) patch["ports"] = listPatch(pick, "containerPort", PORTS, () => ({ protocol: pick.one(["TCP", "UDP"]) }));
  if (pick.chance(0.2)) patch["volumeMounts"] = listPatch(pick, "mountPath", MOUNTS, () => ({ name: pick.one(VOLUMES), readOnly: pick.chance(0.5) }));
  if (pick.chance(0.2)) patch["args"] = pick.some(["x", "y", "w"]);
  if (pick.chance(0.1)) patch["$retainKeys"] = pick.chance(0.7) ? ["name", "image", "env", "ports", "volumeMounts", "args"] : ["name"];
  if (pick.chance(0.05)) patch["workingDir"] = null;
  return patch;
}

export function randomStrategicPatch(pick: Picker, pod: JsonObject): JsonObject {
  const patch: JsonObject = {};
  const metadata: JsonObject = {};
  if (pick.chance(0.4)) {
    const labels: JsonObject = {};
    for (const key of pick.some(LABELS)) labels[key] = pick.chance(0.3) ? null : String(pick.int(3));
    if (pick.chance(0.1)) labels["$patch"] = pick.one(["replace", "delete"]);
    metadata["labels"] = labels;
  }
  if (pick.chance(0.5)) {
    const podFinalizers = ((pod["metadata"] as JsonObject)["finalizers"] as JsonValue[] | undefined) ?? [];
    const add = pick.some(FINALIZERS, 2);
    if (pick.chance(0.5)) metadata["finalizers"] = add;
    else metadata["$deleteFromPrimitiveList/finalizers"] = pick.some(FINALIZERS, 2);
    if (pick.chance(0.4) && (podFinalizers.length > 0 || metadata["finalizers"] !== undefined)) {
      metadata["$setElementOrder/finalizers"] = orderFor(pick, "", FINALIZERS, (metadata["finalizers"] as JsonValue[] | undefined) ?? []);
    }
  }
  if (pick.chance(0.3)) {
    metadata["ownerReferences"] = listPatch(pick, "uid", UIDS, (uid) => ({ name: `o-${String(uid)}`, controller: pick.chance(0.5) }));
  }
  if (Object.keys(metadata).length > 0) patch["metadata"] = metadata;

  const spec: JsonObject = {};
  if (pick.chance(0.7)) {
    const items = listPatch(pick, "name", CONTAINER_NAMES, (name) => containerPatch(pick, name));
    spec["containers"] = items;
    if (pick.chance(0.35)) spec["$setElementOrder/containers"] = orderFor(pick, "name", CONTAINER_NAMES, items);
  }
  if (pick.chance(0.3)) {
    spec["volumes"] = pick.some(VOLUMES, 2).map((name) => {
      const volume = volumeSource(pick, name);
      if (pick.chance(0.6)) volume["$retainKeys"] = pick.chance(0.85) ? Object.keys(volume) : ["name"];
      return volume;
    });
  }
  if (pick.chance(0.2)) spec["tolerations"] = pick.some(["a", "b", "c"]).map((key) => ({ key, operator: "Exists" }));
  if (pick.chance(0.1)) spec["securityContext"] = pick.chance(0.5) ? { $patch: "delete" } : { runAsUser: null, fsGroup: 2 };
  if (pick.chance(0.1)) spec["nodeSelector"] = null;
  if (pick.chance(0.05)) spec["containers"] = pick.one<JsonValue>(["bad", 1, { name: "c1" }]);
  if (pick.chance(0.05)) spec["$patch"] = pick.one(["replace", "delete", "merge"]);
  if (Object.keys(spec).length > 0) patch["spec"] = spec;

  if (pick.chance(0.3)) {
    const conditions = pick.some(CONDITIONS).map((type) => ({ type, status: pick.one(["True", "False"]) }));
    patch["status"] = { conditions, phase: pick.chance(0.5) ? "Running" : null };
  }
  return patch;
}

/** Random JSON (no floats: kubectl's YAML round trip would rewrite them) with nulls at every level. */
function randomJson(pick: Picker, depth: number): JsonValue {
  const roll = pick.int(depth <= 0 ? 4 : 7);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return pick.one(["a", "b", "", "x y"]);
    case 2:
      return pick.int(100) - 10;
    case 3:
      return pick.chance(0.5);
    case 4:
    case 5: {
      const out: JsonObject = {};
      for (const key of pick.some(["a", "b", "c", "d"])) out[key] = randomJson(pick, depth - 1);
      return out;
    }
    default:
      return Array.from({ length: pick.int(4) }, () => randomJson(pick, depth - 1));
  }
}

function randomObject(pick: Picker, depth: number): JsonObject {
  const out: JsonObject = {};
  for (const key of pick.some(["a", "b", "c", "d"])) out[key] = randomJson(pick, depth - 1);
  return out;
}

const PATHS = ["/data", "/data/a", "/data/b", "/data/a/b", "/data/a/0", "/data/c/-", "/data/c/1", "/data/c/0", "/extra", "/metadata/labels", "/metadata/labels/x", "/data/~1", "/nope/a"];

function randomJsonPatch(pick: Picker): JsonValue[] {
  return Array.from({ length: 1 + pick.int(4) }, () => {
    const op = pick.one(["add", "remove", "replace", "move", "copy", "test", "test"]);
    const item: JsonObject = { op, path: pick.one(PATHS) };
    if (op === "move" || op === "copy") item["from"] = pick.one(PATHS);
    if (op !== "remove" && op !== "move" && op !== "copy") item["value"] = randomJson(pick, 2);
    return item;
  });
}

function configMapLike(pick: Picker): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", labels: { x: "1" } },
    data: randomObject(pick, 3),
  };
}

export function fuzzCases(seed: number, counts: { strategic: number; merge: number; json: number }): PatchCase[] {
  const pick = new Picker(prng(seed));
  const cases: PatchCase[] = [];
  for (let i = 0; i < counts.strategic; i++) {
    const target = randomPod(pick);
    cases.push({ name: `fuzz strategic ${i}`, type: "strategic", target, patch: randomStrategicPatch(pick, target) });
  }
  for (let i = 0; i < counts.merge; i++) {
    const target = configMapLike(pick);
    const patch: JsonValue = pick.chance(0.9) ? { data: randomJson(pick, 3), extra: randomJson(pick, 2) } : randomJson(pick, 2);
    cases.push({ name: `fuzz merge ${i}`, type: "merge", target, patch });
  }
  for (let i = 0; i < counts.json; i++) {
    const target = configMapLike(pick);
    if (pick.chance(0.5)) (target["data"] as JsonObject)["c"] = [1, 2, 3];
    cases.push({ name: `fuzz json ${i}`, type: "json", target, patch: randomJsonPatch(pick) });
  }
  return cases;
}
