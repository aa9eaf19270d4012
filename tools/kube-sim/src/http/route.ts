// Request paths to resource requests, after k8s.io/apiserver's RequestInfoFactory.
import type { ResourceInfo } from "../resources.ts";
import { findResource } from "../resources.ts";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceRoute {
  kind: "resource";
  info: ResourceInfo;
  /** The namespace segment; undefined for cluster-scoped objects and all-namespace lists. */
  namespace: string | undefined;
  name: string | undefined;
  subresource: string;
  /** `/watch/` path prefix (deprecated form of `?watch=true`). */
  watchPath: boolean;
  apiGroup: string;
  apiVersion: string;
}

export type Route = ResourceRoute | { kind: "nonresource"; path: string } | { kind: "unknown" };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRoute(pathname: string): Route {
  const parts = pathname.split("/").filter((p) => p !== "").map(decode);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) {
    group = "";
    version = parts[1] ?? "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1] ?? "";
    version = parts[2] ?? "";
    rest = parts.slice(3);
  } else {
    return { kind: "nonresource", path: `/${parts.join("/")}` };
  }
  if (rest.length === 0) return { kind: "nonresource", path: `/${parts.join("/")}` };
  const gv = group === "" ? version : `${group}/${version}`;
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const candidate = findResource(gv, rest[2] ?? "");
    const nsInfo = findResource(gv, "namespaces");
    if (candidate === undefined && nsInfo !== undefined && rest.length === 3) {
      // /api/v1/namespaces/{name}/status|finalize
      return { kind: "resource", info: nsInfo, namespace: undefined, name: rest[1], subresource: rest[2] ?? "", watchPath, apiGroup: group, apiVersion: version };
    }
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const info = findResource(gv, rest[0] ?? "");
  if (info === undefined || rest.length > 3) return { kind: "unknown" };
  if (namespace !== undefined && !info.namespaced) return { kind: "unknown" };
  return {
    kind: "resource",
    info,
    namespace,
    name: rest[1],
    subresource: rest[2] ?? "",
    watchPath,
    apiGroup: group,
    apiVersion: version,
  };
}
