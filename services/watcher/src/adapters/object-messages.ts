// The message of a subject's want, as both the stream publish and its live copy carry it: the envelope (the
// mirror's object for a PUT, the identity alone for a tombstone) and the headers (K8s-UID, K8s-RV, Op, the
// publication version when active, and the W3C trace context).
import type { Context } from "@opentelemetry/api";
import { headers } from "@nats-io/transport-node";
import type { MsgHdrs } from "@nats-io/transport-node";
import { HEADERS, OBJECT_KINDS, formatPublicationVersion, injectTraceContext } from "#protocol";
import type { KubeObject, ObjectEnvelope, PublicationVersion, Shard } from "#protocol";
import type { MessageContent, PublishCommand } from "../domain/subject-messages.ts";
import { parseObjectKey } from "../domain/objects.ts";
import type { MirrorState } from "../domain/state.ts";

/** A subject's want or a command: the object and the content of its message. */
export interface WantIdentity extends MessageContent {
  readonly key: PublishCommand["key"];
  readonly shard: Shard;
}

export function objectHeaders(want: WantIdentity, version: PublicationVersion | undefined, context: Context): MsgHdrs {
  const h = headers();
  h.set(HEADERS.uid, want.uid);
  h.set(HEADERS.resourceVersion, want.rv);
  h.set(HEADERS.op, want.op);
  if (version !== undefined) h.set(HEADERS.publication, formatPublicationVersion(version));
  injectTraceContext(context, h);
  return h;
}

/** The envelope of `want`, or undefined when the mirror no longer has that version of the object. */
export function objectEnvelope(state: Pick<MirrorState, "getByKey">, want: WantIdentity): ObjectEnvelope | undefined {
  const { kind, namespace, name } = parseObjectKey(want.key);
  const identity = { kind: OBJECT_KINDS[kind], namespace, name, uid: want.uid, resourceVersion: want.rv };
  if (want.op === "DEL") return { type: "object.delete", ...identity };
  const object = state.getByKey(want.key);
  if (!object || object.uid !== want.uid || object.resourceVersion !== want.rv) return undefined;
  // parseWatchedObject guaranteed apiVersion, kind and metadata.name/namespace/uid/resourceVersion.
  const statusManagers = object.statusManagers.length > 0 ? { statusManagers: [...object.statusManagers] } : {};
  return { type: "object.put", ...identity, object: object.body as KubeObject, ...statusManagers };
}
