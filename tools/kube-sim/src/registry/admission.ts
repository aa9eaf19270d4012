// What the apiserver adds on create outside the type strategies: the StorageObjectInUseProtection
// admission plugin's finalizers and the Service IP allocator. Each step is skipped when api/ already did it.
import type { ResourceInfo } from "../resources.ts";
import type { KubeObject } from "../types.ts";
import { isRecord } from "../types.ts";

export const PVC_PROTECTION = "kubernetes.io/pvc-protection";
export const PV_PROTECTION = "kubernetes.io/pv-protection";

export interface IpAllocator {
  nextServiceIp(): string;
}

let serviceIpCounter = 0;

/** 10.96.0.0/12 like kubeadm's default service CIDR; .1 is the kubernetes service. */
function nextServiceIp(): string {
  serviceIpCounter++;
  const n = serviceIpCounter + 1;
  return `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

function addFinalizer(obj: KubeObject, finalizer: string): void {
  const list = obj.metadata.finalizers ?? [];
  if (!list.includes(finalizer)) obj.metadata.finalizers = [...list, finalizer];
}

export function admitCreate(_registry: unknown, info: ResourceInfo, obj: KubeObject): KubeObject {
  if (info.group !== "") return obj;
  switch (info.resource) {
    case "persistentvolumeclaims":
      addFinalizer(obj, PVC_PROTECTION);
      return obj;
    case "persistentvolumes":
      addFinalizer(obj, PV_PROTECTION);
      return obj;
    case "services": {
      const spec = isRecord(obj["spec"]) ? obj["spec"] : {};
      obj["spec"] = spec;
      if (spec["type"] === "ExternalName") return obj;
      const ip = spec["clusterIP"];
      if (ip === undefined || ip === "") {
        const allocated = nextServiceIp();
        spec["clusterIP"] = allocated;
        spec["clusterIPs"] = [allocated];
      } else if (spec["clusterIPs"] === undefined) {
        spec["clusterIPs"] = [ip];
      }
      spec["ipFamilies"] ??= ["IPv4"];
      spec["ipFamilyPolicy"] ??= "SingleStack";
      return obj;
    }
    default:
      return obj;
  }
}
