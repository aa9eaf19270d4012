// The shape of the simulator's protobuf schema: Kubernetes' wire format (the field numbers and types of upstream's
// `generated.proto` files, proto2) plus the one fact the wire does not carry and the JSON form needs: whether a zero
// value of a field is kept in JSON. The codec (../codec.ts) is driven by these tables; no .proto is parsed at run time.
//
// Message names are `<package>.<Name>` with the package as upstream's Go import path's last two elements, e.g.
// `meta.v1.ObjectMeta`, `core.v1.Pod`, `apps.v1.StatefulSet`. Built-in types with their own JSON form are referred to
// by the names in `SpecialType` and have no entry in the tables.

/** Scalar wire types used by Kubernetes' protos. int64 is read as a JavaScript number (Kubernetes JSON does the same). */
export const SCALARS = ["string", "bytes", "bool", "int32", "int64", "double", "float"] as const;
export type Scalar = (typeof SCALARS)[number];

/**
 * Types whose JSON form is not the plain message form (see ../codec.ts):
 * - `meta.v1.Time` {seconds int64 = 1, nanos int32 = 2}: RFC 3339 string, whole seconds ("2026-12-02T04:00:00Z").
 * - `meta.v1.MicroTime` (same fields): RFC 3339 string with six fractional digits.
 * - `meta.v1.Duration` {duration int64 = 1, nanoseconds}: Go duration string ("1m0s").
 * - `resource.Quantity` {string string = 1}: the quantity's string.
 * - `intstr.IntOrString` {type int64 = 1, intVal int32 = 2, strVal string = 3}: a JSON number or string.
 * - `runtime.RawExtension` {raw bytes = 1}: the embedded JSON value (raw holds JSON bytes).
 * - `meta.v1.FieldsV1` {Raw bytes = 1}: the embedded JSON object (managedFields[].fieldsV1).
 */
export const SPECIAL_TYPES = [
  "meta.v1.Time",
  "meta.v1.MicroTime",
  "meta.v1.Duration",
  "resource.Quantity",
  "intstr.IntOrString",
  "runtime.RawExtension",
  "meta.v1.FieldsV1",
] as const;
export type SpecialType = (typeof SPECIAL_TYPES)[number];

export interface FieldDef {
  /**
   * The JSON name (the Go field's json tag), e.g. "generateName". Empty for an embedded Go struct whose fields are
   * inlined into the enclosing JSON object (`json:",inline"`: Volume's VolumeSource, Probe's ProbeHandler, ...); on the
   * wire it is an ordinary nested message.
   */
  readonly json: string;
  /** The protobuf field number from upstream's generated.proto. */
  readonly no: number;
  /** A `Scalar`, a `SpecialType`, or a message name of the tables (all strings, told apart by the codec). */
  readonly type: string;
  readonly repeated?: true;
  /** `map<string, type>`: wire entries {key string = 1, value type = 2}; JSON object. Keys are always strings. */
  readonly map?: true;
  /**
   * A zero value ("", 0, false) of this scalar read from the wire stays in the JSON form: the Go field is a pointer
   * (`*int32`, `*string`, `*bool`: zero is a value the sender chose) or its json tag has no `omitempty` (Go's JSON
   * always writes it). Without it a zero scalar from the wire is dropped, as Go's JSON encoder drops it.
   */
  readonly keepZero?: true;
}

export interface MessageDef {
  readonly fields: readonly FieldDef[];
}

/** Message name -> definition. */
export type SchemaTable = Readonly<Record<string, MessageDef>>;
