// Discovery documents: /version, /api, /apis, per group-version resource lists, and the aggregated
// apidiscovery.k8s.io/v2 form kubectl 1.30+ asks for first.
import type { ResourceInfo } from "../resources.ts";
import { RESOURCES, apiResourceList as apiResourceListOf, categoriesOf } from "../resources.ts";

export const SERVER_VERSION = {
  major: "1",
  minor: "37",
  emulationMajor: "1",
  emulationMinor: "37",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "36",
  gitVersion: "v1.37.0-kube-sim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-11-01T00:00:00Z",
  goVersion: "go1.25.0",
  compiler: "gc",
  platform: "linux/amd64",
};

interface SubresourceInfo {
  name: string;
  kind: { group: string; version: string; kind: string };
  verbs: string[];
}

function subresource(info: ResourceInfo, sub: string): SubresourceInfo {
  const own = { group: info.group, version: info.version, kind: info.kind };
  switch (sub) {
    case "scale":
      return { name: sub, kind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] };
    case "eviction":
      return { name: sub, kind: { group: "policy", version: "v1", kind: "Eviction" }, verbs: ["create"] };
    case "binding":
      return { name: sub, kind: { group: "", version: "v1", kind: "Binding" }, verbs: ["create"] };
    case "log":
      return { name: sub, kind: own, verbs: ["get"] };
    case "finalize":
      return { name: sub, kind: own, verbs: ["update"] };
    default:
      return { name: sub, kind: own, verbs: ["get", "patch", "update"] };
  }
}

export interface GroupInfo {
  name: string;
  versions: string[];
}

export function groups(): GroupInfo[] {
  const out: GroupInfo[] = [];
  for (const info of RESOURCES) {
    if (info.group === "") continue;
    let g = out.find((x) => x.name === info.group);
    if (g === undefined) {
      g = { name: info.group, versions: [] };
      out.push(g);
    }
    if (!g.versions.includes(info.version)) g.versions.push(info.version);
  }
  return out;
}

export function apiVersions(serverAddress: string): unknown {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

export function apiGroupList(): unknown {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups().map((g) => apiGroup(g)),
  };
}

export function apiGroup(g: GroupInfo): unknown {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { kind: "APIGroup", apiVersion: "v1", name: g.name, versions, preferredVersion: versions[0] };
}

export function findGroup(name: string): GroupInfo | undefined {
  return groups().find((g) => g.name === name);
}

function discoveryResource(info: ResourceInfo): unknown {
  const out: Record<string, unknown> = {
    resource: info.resource,
    responseKind: { group: info.group, version: info.version, kind: info.kind },
    scope: info.namespaced ? "Namespaced" : "Cluster",
    singularResource: info.singular,
    verbs: info.verbs,
  };
  if (info.shortNames.length > 0) out["shortNames"] = info.shortNames;
  if (categoriesOf(info).length > 0) out["categories"] = categoriesOf(info);
  if (info.subresources.length > 0) {
    out["subresources"] = info.subresources.map((sub) => {
      const s = subresource(info, sub);
      return { subresource: sub, responseKind: s.kind, verbs: s.verbs };
    });
  }
  return out;
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscovery(core: boolean): unknown {
  const items = core
    ? [{ metadata: { creationTimestamp: null }, versions: [versionEntry("", "v1")] }]
    : groups().map((g) => ({ metadata: { name: g.name, creationTimestamp: null }, versions: g.versions.map((v) => versionEntry(g.name, v)) }));
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}

function versionEntry(group: string, version: string): unknown {
  return {
    version,
    resources: RESOURCES.filter((r) => r.group === group && r.version === version).map(discoveryResource),
    freshness: "Current",
  };
}

/** The APIResourceList of a served group-version (from api/), undefined for any other. */
export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  if (!RESOURCES.some((r) => r.group === group && r.version === version)) return undefined;
  return apiResourceListOf(group === "" ? version : `${group}/${version}`);
}
