import packageJson from "../../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;

export type ServiceName = "watcher" | "actor" | "pvc-provisioner" | "status-writer" | "kube-sim" | "stsfleet";

/** `stsfleet-<service>/<version> (<instance name>)`: how every Kubernetes request names its sender. */
export function userAgent(service: ServiceName, instance: string): string {
  return `stsfleet-${service}/${VERSION} (${instance})`;
}
