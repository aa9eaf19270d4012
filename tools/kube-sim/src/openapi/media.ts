// Accept negotiation for /openapi/v2 between the JSON swagger and its gnostic protobuf form, the way
// kube-openapi's handler chooses: clauses in the client's order of preference (by q, then by
// specificity), the first that names JSON or protobuf (or a wildcard, which means JSON) wins.

/** What kubectl and client-go ask for (the `@` spelling is kube-openapi's deprecated one, still accepted). */
export const OPENAPI_V2_PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
/**
 * The Content-Type of the protobuf reply. A real apiserver answers with the `.v1.0` spelling for either
 * request spelling, and must: `@` is not allowed in a media type token, so Go's mime.ParseMediaType (which
 * client-go runs on every Content-Type) rejects the deprecated spelling and kubectl would fail.
 */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = OPENAPI_V2_PROTOBUF;

interface Clause {
  readonly type: string;
  readonly q: number;
  readonly specificity: number;
  readonly index: number;
}

function clauses(accept: string | undefined): Clause[] {
  const header = accept === undefined || accept.trim() === "" ? "*/*" : accept;
  const out: Clause[] = [];
  header.split(",").forEach((part, index) => {
    const [type = "", ...params] = part.split(";").map((s) => s.trim());
    let q = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/i.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (type === "" || !(q > 0)) return;
    const lower = type.toLowerCase();
    const specificity = lower === "*/*" ? 0 : lower.endsWith("/*") ? 1 : 2;
    out.push({ type: lower, q, specificity, index });
  });
  return out.sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.index - b.index);
}

/**
 * Whether the protobuf form is the client's first choice for /openapi/v2. When it is not, the caller
 * serves JSON or 406 as before.
 */
export function prefersOpenApiV2Protobuf(accept: string | undefined): boolean {
  for (const c of clauses(accept)) {
    if (c.type === OPENAPI_V2_PROTOBUF || c.type === OPENAPI_V2_PROTOBUF_DEPRECATED) return true;
    if (c.type === "application/json" || c.type === "application/*" || c.type === "*/*") return false;
  }
  return false;
}
