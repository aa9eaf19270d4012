// What the apiserver does on create outside the type strategies that api/ cannot do as a pure function:
// the Service cluster IP allocator. (api/ adds the StorageObjectInUseProtection finalizers itself.)
import type { ResourceInfo } from "../resources.ts";
import { needsClusterIP } from "../resources.ts";
import type { KubeObject } from "../types.ts";
import { isRecord } from "../types.ts";

export const PVC_PROTECTION = "kubernetes.io/pvc-protection";
export const PV_PROTECTION = "kubernetes.io/pv-protection";

/** Allocates from 10.96.0.0/12 like kubeadm's default service CIDR (.1 is the kubernetes service). */
export class ServiceIpAllocator {
  private next = 1;

  allocate(): string {
    this.next++;
    const n = this.next;
    return `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
  }
}

export function admitCreate(ips: ServiceIpAllocator, info: ResourceInfo, obj: KubeObject): KubeObject {
  if (info.group !== "" || info.resource !== "services" || !needsClusterIP(obj)) return obj;
  const spec = isRecord(obj["spec"]) ? obj["spec"] : {};
  const ip = ips.allocate();
  spec["clusterIP"] = ip;
  spec["clusterIPs"] = [ip];
  obj["spec"] = spec;
  return obj;
}
