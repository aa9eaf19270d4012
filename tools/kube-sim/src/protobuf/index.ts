// The simulator's protobuf serializer: the envelope and codec over every schema table, built once on first use.
import { KubeProtobuf } from "./envelope.ts";
import { APPS_V1 } from "./schema/apps-v1.ts";
import { CORE_V1 } from "./schema/core-v1.ts";
import { AUTOSCALING_V1, COORDINATION_V1, EVENTS_V1, NETWORKING_V1, POLICY_V1, RBAC_V1 } from "./schema/groups.ts";
import { META_V1 } from "./schema/meta-v1.ts";
import type { SchemaTable } from "./schema/types.ts";

export const TABLES: readonly SchemaTable[] = [META_V1, CORE_V1, APPS_V1, COORDINATION_V1, EVENTS_V1, AUTOSCALING_V1, POLICY_V1, NETWORKING_V1, RBAC_V1];

let instance: KubeProtobuf | undefined;

/** The serializer of every served kind (its codec precomputes per-message lookups once). */
export function kubeProtobuf(): KubeProtobuf {
  instance ??= new KubeProtobuf(TABLES);
  return instance;
}

export { KubeProtobuf, PROTOBUF_CONTENT_TYPE, PROTOBUF_WATCH_CONTENT_TYPE, EnvelopeError, UnknownKindError, WatchFrameReader } from "./envelope.ts";
export { JsonTypeError, UnknownFieldError, UnknownJsonFieldError, UnknownMessageError, WireFormatError } from "./codec.ts";
