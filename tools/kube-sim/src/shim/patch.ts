// TEMPORARY stand-in for ../patch (written in parallel by another engineer); removed once it lands.
export class PatchError extends Error {
  readonly httpStatus: number;
  readonly reason: string;
  constructor(httpStatus: number, reason: string, message: string) {
    super(message);
    this.name = "PatchError";
    this.httpStatus = httpStatus;
    this.reason = reason;
  }
}

export type PatchType = "json" | "merge" | "strategic";

export function patchTypeFromContentType(ct: string): PatchType | undefined {
  const base = ct.split(";")[0]?.trim();
  if (base === "application/json-patch+json") return "json";
  if (base === "application/merge-patch+json") return "merge";
  if (base === "application/strategic-merge-patch+json") return "strategic";
  return undefined;
}

function merge(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$")) continue;
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

export function applyPatch(
  type: PatchType,
  target: unknown,
  patch: unknown,
  _gvk: { apiVersion: string; kind: string },
): unknown {
  if (type === "json") {
    const doc = structuredClone(target) as Record<string, unknown>;
    for (const op of patch as { op: string; path: string; value?: unknown }[]) {
      const parts = op.path.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
      const last = parts.pop() ?? "";
      let cur: Record<string, unknown> = doc;
      for (const p of parts) cur = cur[p] as Record<string, unknown>;
      if (op.op === "remove") delete cur[last];
      else if (op.op === "test") {
        if (JSON.stringify(cur[last]) !== JSON.stringify(op.value)) throw new PatchError(422, "Invalid", "test failed");
      } else if (Array.isArray(cur) && last === "-") (cur as unknown[]).push(op.value);
      else cur[last] = op.value;
    }
    return doc;
  }
  return merge(target, patch);
}
