import packageJson from "../../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;

export type ServiceName = "watcher" | "actor" | "pvc-provisioner" | "status-writer" | "kube-sim" | "stsfleet";

/**
 * `stsfleet-<service>`: the field manager the API server records for the service's writes, which send no
 * `fieldManager` parameter (it takes the User-Agent up to its first "/").
 */
export function fieldManager(service: ServiceName): string {
  return `stsfleet-${service}`;
}

/** `stsfleet-<service>/<version> (<instance name>)`: how every Kubernetes request names its sender. */
export function userAgent(service: ServiceName, instance: string): string {
  return `${fieldManager(service)}/${VERSION} (${instance})`;
}
