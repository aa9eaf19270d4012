// Kubernetes' protobuf envelope and watch framing (k8s.io/apimachinery/pkg/runtime/serializer/protobuf):
//
// - an object is the 4 magic bytes `k8s\0` and a runtime.Unknown message {typeMeta = 1 (runtime.TypeMeta
//   {apiVersion = 1, kind = 2}), raw = 2 (the object's message bytes), contentEncoding = 3, contentType = 4};
// - a watch stream (`application/vnd.kubernetes.protobuf;stream=watch`) is a sequence of frames, each a 4-byte
//   big-endian length and a metav1.WatchEvent {type = 1, object = 2 (runtime.RawExtension {raw = 1})} written by the
//   *raw* serializer (no magic, no Unknown: the apiserver's stream serializer for protobuf is the RawSerializer),
//   whose object.raw is the event's object encoded as above, envelope included (the embedded encoder is the normal
//   serializer). client-go's watch decoder reads the frame into a WatchEvent and then decodes object.raw.
import { ProtobufCodec, Reader, UnknownFieldError, WireFormatError, Writer } from "./codec.ts";
import type { SchemaTable } from "./schema/types.ts";

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
export const PROTOBUF_WATCH_CONTENT_TYPE = "application/vnd.kubernetes.protobuf;stream=watch";
export const PROTOBUF_MAGIC: Readonly<Buffer> = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** An envelope whose (apiVersion, kind) has no message here. */
export class UnknownKindError extends Error {
  readonly apiVersion: string;
  readonly kind: string;
  constructor(apiVersion: string, kind: string) {
    super(`no kind "${kind}" is registered for version "${apiVersion}"`);
    this.name = "UnknownKindError";
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

/** Bytes that are not an envelope (no magic, empty, a content encoding the simulator does not read). */
export class EnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvelopeError";
  }
}

export interface KindEntry {
  readonly apiVersion: string;
  readonly kind: string;
  /** The message name in the schema tables. */
  readonly message: string;
}

/** The group versions the simulator serves (and the proto package of their types). */
const SERVED_GROUP_VERSIONS: readonly { apiVersion: string; pkg: string; kinds: readonly string[] }[] = [
  {
    apiVersion: "v1",
    pkg: "core.v1",
    kinds: ["Namespace", "Node", "Pod", "PersistentVolumeClaim", "PersistentVolume", "Service", "ConfigMap", "Event", "Secret", "ServiceAccount"],
  },
  { apiVersion: "apps/v1", pkg: "apps.v1", kinds: ["StatefulSet", "ControllerRevision", "Deployment"] },
  { apiVersion: "coordination.k8s.io/v1", pkg: "coordination.v1", kinds: ["Lease"] },
  { apiVersion: "events.k8s.io/v1", pkg: "events.v1", kinds: ["Event"] },
  { apiVersion: "networking.k8s.io/v1", pkg: "networking.v1", kinds: ["NetworkPolicy"] },
  { apiVersion: "policy/v1", pkg: "policy.v1", kinds: ["PodDisruptionBudget"] },
  { apiVersion: "rbac.authorization.k8s.io/v1", pkg: "rbac.v1", kinds: ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"] },
];

function buildKinds(): KindEntry[] {
  const kinds: KindEntry[] = [];
  for (const gv of SERVED_GROUP_VERSIONS) {
    for (const kind of gv.kinds) {
      kinds.push({ apiVersion: gv.apiVersion, kind, message: `${gv.pkg}.${kind}` });
      kinds.push({ apiVersion: gv.apiVersion, kind: `${kind}List`, message: `${gv.pkg}.${kind}List` });
    }
  }
  kinds.push({ apiVersion: "v1", kind: "Status", message: "meta.v1.Status" });
  kinds.push({ apiVersion: "autoscaling/v1", kind: "Scale", message: "autoscaling.v1.Scale" });
  kinds.push({ apiVersion: "policy/v1", kind: "Eviction", message: "policy.v1.Eviction" });
  // metav1.AddToGroupVersion registers the option types in every group version; client-go's typed delete sends
  // DeleteOptions with its client's group version.
  for (const apiVersion of new Set([...SERVED_GROUP_VERSIONS.map((gv) => gv.apiVersion), "meta.k8s.io/v1", "policy/v1", "autoscaling/v1"])) {
    kinds.push({ apiVersion, kind: "DeleteOptions", message: "meta.v1.DeleteOptions" });
  }
  return kinds;
}

/** Every (apiVersion, kind) the simulator reads or writes in protobuf. */
export const KINDS: readonly KindEntry[] = buildKinds();

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  /** The JSON form, with `kind` and `apiVersion` from the envelope first. */
  object: Record<string, unknown>;
}

export interface DecodedWatchEvent {
  type: string;
  /** The embedded object's envelope. */
  object: DecodedObject;
}

/** Envelope encoding and decoding over a codec built from the schema tables. */
export class KubeProtobuf {
  readonly codec: ProtobufCodec;
  private readonly messages = new Map<string, string>();
  private readonly writer = new Writer();

  constructor(tables: readonly SchemaTable[], kinds: readonly KindEntry[] = KINDS) {
    this.codec = new ProtobufCodec(tables, { typeMetaMessages: kinds.map((k) => k.message) });
    for (const k of kinds) this.messages.set(`${k.apiVersion}/${k.kind}`, k.message);
  }

  /** The message of (apiVersion, kind), if it is registered and its schema exists. */
  messageFor(apiVersion: string, kind: string): string | undefined {
    const message = this.messages.get(`${apiVersion}/${kind}`);
    return message !== undefined && this.codec.has(message) ? message : undefined;
  }

  /** Registered kinds whose message no table defines (a schema gap). */
  missingKinds(): string[] {
    const out: string[] = [];
    for (const [key, message] of this.messages) if (!this.codec.has(message)) out.push(`${key} -> ${message}`);
    return out;
  }

  private mustMessage(apiVersion: string, kind: string): string {
    const message = this.messageFor(apiVersion, kind);
    if (message === undefined) throw new UnknownKindError(apiVersion, kind);
    return message;
  }

  /** `obj` (a JSON object with apiVersion and kind, or the given ones) as envelope bytes. */
  encode(obj: Record<string, unknown>, typeMeta?: { apiVersion: string; kind: string }): Buffer {
    const w = this.writer;
    w.reset();
    this.encodeTo(w, obj, typeMeta);
    return w.copyOut();
  }

  /** Writes the envelope of `obj` at the writer's position. */
  encodeTo(w: Writer, obj: Record<string, unknown>, typeMeta?: { apiVersion: string; kind: string }): void {
    const apiVersion = typeMeta?.apiVersion ?? obj["apiVersion"];
    const kind = typeMeta?.kind ?? obj["kind"];
    if (typeof apiVersion !== "string" || typeof kind !== "string") throw new EnvelopeError("an object without apiVersion and kind cannot be encoded");
    const message = this.mustMessage(apiVersion, kind);
    w.raw(PROTOBUF_MAGIC);
    w.byte(0x0a);
    const tm = w.beginLength();
    w.byte(0x0a);
    w.string(apiVersion);
    w.byte(0x12);
    w.string(kind);
    w.endLength(tm);
    w.byte(0x12);
    const raw = w.beginLength();
    this.codec.encodeTo(w, message, obj);
    w.endLength(raw);
    // contentEncoding and contentType, empty, as Go's generated marshaller writes them.
    w.byte(0x1a);
    w.byte(0);
    w.byte(0x22);
    w.byte(0);
  }

  /** The object in envelope bytes. */
  decode(bytes: Uint8Array, start = 0, end = bytes.length): DecodedObject {
    if (end - start === 0) throw new EnvelopeError("empty data");
    if (end - start < 4 || bytes[start] !== 0x6b || bytes[start + 1] !== 0x38 || bytes[start + 2] !== 0x73 || bytes[start + 3] !== 0x00) {
      throw new EnvelopeError(`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
    }
    if (end - start === 4) throw new EnvelopeError("empty body");
    const r = new Reader(bytes, start + 4, end);
    let apiVersion = "";
    let kind = "";
    let rawStart = -1;
    let rawEnd = -1;
    let contentEncoding = "";
    let contentType = "";
    while (r.pos < end) {
      const tag = r.varint(end);
      switch (tag) {
        case 0x0a: {
          const tmEnd = r.lengthEnd(end);
          while (r.pos < tmEnd) {
            const t = r.varint(tmEnd);
            if (t !== 0x0a && t !== 0x12) throw new UnknownFieldError("runtime.TypeMeta", t >>> 3);
            const e = r.lengthEnd(tmEnd);
            const s = r.buf.toString("utf8", r.pos, e);
            r.pos = e;
            if (t === 0x0a) apiVersion = s;
            else kind = s;
          }
          break;
        }
        case 0x12:
          rawEnd = r.lengthEnd(end);
          rawStart = r.pos;
          r.pos = rawEnd;
          break;
        case 0x1a:
        case 0x22: {
          const e = r.lengthEnd(end);
          const s = r.buf.toString("utf8", r.pos, e);
          r.pos = e;
          if (tag === 0x1a) contentEncoding = s;
          else contentType = s;
          break;
        }
        default:
          if ((tag & 7) > 5 || tag >>> 3 === 0) throw new WireFormatError(`runtime.Unknown: invalid tag ${tag}`);
          throw new UnknownFieldError("runtime.Unknown", tag >>> 3);
      }
    }
    if (contentEncoding !== "") throw new EnvelopeError(`unsupported content encoding ${JSON.stringify(contentEncoding)}`);
    if (contentType !== "" && contentType !== PROTOBUF_CONTENT_TYPE) throw new EnvelopeError(`unsupported embedded content type ${JSON.stringify(contentType)}`);
    if (kind === "") throw new EnvelopeError("Object 'Kind' is missing in the protobuf envelope");
    if (apiVersion === "") throw new EnvelopeError("Object 'apiVersion' is missing in the protobuf envelope");
    const message = this.mustMessage(apiVersion, kind);
    const object: Record<string, unknown> = { kind, apiVersion };
    if (rawStart >= 0) this.codec.decodeInto(message, bytes, rawStart, rawEnd, object);
    return { apiVersion, kind, object };
  }

  /** One watch frame: length, then a WatchEvent whose object.raw is the envelope of `obj`. */
  watchFrame(type: string, obj: Record<string, unknown>, typeMeta?: { apiVersion: string; kind: string }): Buffer {
    const w = this.writer;
    w.reset();
    w.ensure(4);
    w.pos = 4;
    w.byte(0x0a);
    w.string(type);
    w.byte(0x12);
    const object = w.beginLength();
    w.byte(0x0a);
    const raw = w.beginLength();
    this.encodeTo(w, obj, typeMeta);
    w.endLength(raw);
    w.endLength(object);
    w.buf.writeUInt32BE(w.pos - 4, 0);
    return w.copyOut();
  }

  /** A WatchEvent frame's message (the bytes after the length). */
  decodeWatchEvent(bytes: Uint8Array, start = 0, end = bytes.length): DecodedWatchEvent {
    const r = new Reader(bytes, start, end);
    let type = "";
    let object: DecodedObject | undefined;
    while (r.pos < end) {
      const tag = r.varint(end);
      if (tag === 0x0a) {
        const e = r.lengthEnd(end);
        type = r.buf.toString("utf8", r.pos, e);
        r.pos = e;
      } else if (tag === 0x12) {
        const e = r.lengthEnd(end);
        while (r.pos < e) {
          const t = r.varint(e);
          if (t !== 0x0a) throw new UnknownFieldError("runtime.RawExtension", t >>> 3);
          const re = r.lengthEnd(e);
          object = this.decode(bytes, r.pos, re);
          r.pos = re;
        }
      } else {
        throw new UnknownFieldError("meta.v1.WatchEvent", tag >>> 3);
      }
    }
    if (object === undefined) throw new EnvelopeError("watch event without an object");
    return { type, object };
  }
}

/**
 * Splits a watch stream into frames: feed chunks as they arrive, get back every complete frame's WatchEvent
 * bytes (the 4-byte big-endian length is the LengthDelimitedFramer's).
 */
export class WatchFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): Buffer[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    let pos = 0;
    while (this.pending.length - pos >= 4) {
      const len = this.pending.readUInt32BE(pos);
      if (this.pending.length - pos - 4 < len) break;
      frames.push(this.pending.subarray(pos + 4, pos + 4 + len));
      pos += 4 + len;
    }
    this.pending = this.pending.subarray(pos);
    return frames;
  }

  /** Bytes of an incomplete frame left at the end. */
  get buffered(): number {
    return this.pending.length;
  }
}
