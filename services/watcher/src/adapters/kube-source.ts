// KubeSource over the shared Kubernetes client: lists through KubeClient (JSON as the server sent it, with our
// User-Agent and request metrics), watches through client-node's Watch bound to the same KubeConfig.
import type { KubeClient, ResourceRef } from "../../../common/src/kube.ts";
import { resourcePath } from "../../../common/src/kube.ts";
import type { KubeSource, ListPage, WatchHandle } from "./reflector.ts";
import { MalformedListError } from "./reflector.ts";

interface ListBody {
  readonly metadata?: { readonly resourceVersion?: unknown; readonly continue?: unknown };
  readonly items?: unknown;
}

export interface KubeSourceOptions {
  /** Restrict to one namespace; all namespaces when undefined. */
  readonly namespace: string | undefined;
  /**
   * client-node aborts a watch that has received no bytes for this long (30 s by default, its private
   * `requestTimeoutMs`). Our watchdog owns stall detection, so this is set just above it.
   */
  readonly watchInactivityTimeoutMs: number;
}

export function kubeSource(client: KubeClient, resource: ResourceRef, options: KubeSourceOptions): KubeSource {
  const ref: ResourceRef = { ...resource, namespace: options.namespace };
  return {
    async list({ limit, continueToken, signal }): Promise<ListPage> {
      const body = await client.list<ListBody>(ref, { limit, continue: continueToken }, { signal });
      const resourceVersion = body?.metadata?.resourceVersion;
      const next = body?.metadata?.continue;
      if (!Array.isArray(body?.items)) throw new MalformedListError(`list ${resourcePath(ref)}: no items array`);
      if (typeof resourceVersion !== "string") throw new MalformedListError(`list ${resourcePath(ref)}: no resourceVersion`);
      return {
        items: body.items as unknown[],
        resourceVersion,
        continueToken: typeof next === "string" && next.length > 0 ? next : undefined,
      };
    },
    async watch({ resourceVersion, timeoutSeconds }, onEvent, onDone): Promise<WatchHandle> {
      const watch = client.newWatch();
      if ("requestTimeoutMs" in watch) {
        Object.assign(watch, { requestTimeoutMs: options.watchInactivityTimeoutMs });
      }
      const controller = await watch.watch(
        resourcePath(ref),
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        (type: string, object: unknown) => onEvent(type, object),
        onDone,
      );
      return { abort: () => controller.abort() };
    },
  };
}
