// Accept header negotiation: plain JSON, protobuf, Table, PartialObjectMetadata and aggregated discovery.
export type Rendering = "json" | "protobuf" | "table" | "partial" | "discovery-v2" | "unacceptable";

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === "") return [{ type: "*/*", params: {} }];
  return header.split(",").map((part) => {
    const [type = "", ...params] = part.split(";").map((s) => s.trim());
    const out: Record<string, string> = {};
    for (const p of params) {
      const eq = p.indexOf("=");
      if (eq > 0) out[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
    }
    return { type: type.toLowerCase(), params: out };
  });
}

const JSONISH = new Set(["application/json", "*/*", "application/*"]);
const PROTOBUF = "application/vnd.kubernetes.protobuf";

/**
 * The first acceptable rendering in the client's order of preference. `protobuf` allows plain protobuf
 * (`application/vnd.kubernetes.protobuf`, `;stream=watch` too): client-go's typed clients send
 * `application/vnd.kubernetes.protobuf, application/json`. Table and PartialObjectMetadata are served in JSON only,
 * so a protobuf range asking for them (`;as=PartialObjectMetadataList`, client-go's metadata client) is passed over
 * for the client's next choice.
 */
export function negotiate(accept: string | undefined, allowed: { table?: boolean; partial?: boolean; discovery?: boolean; protobuf?: boolean }): Rendering {
  for (const range of parseAccept(accept)) {
    if (range.type === PROTOBUF) {
      if (allowed.protobuf === true && range.params["as"] === undefined) return "protobuf";
      continue;
    }
    if (!JSONISH.has(range.type)) continue;
    const as = range.params["as"];
    if (as === undefined) return "json";
    const g = range.params["g"];
    const v = range.params["v"];
    if (as === "Table" && g === "meta.k8s.io" && (v === "v1" || v === "v1beta1") && allowed.table === true) return "table";
    if ((as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") && g === "meta.k8s.io" && allowed.partial === true) return "partial";
    if (as === "APIGroupDiscoveryList" && g === "apidiscovery.k8s.io" && v === "v2" && allowed.discovery === true) return "discovery-v2";
  }
  return "unacceptable";
}

/** How a Status (an error, or a delete's success) goes back: protobuf when the client prefers it to JSON. */
export function statusEncoding(accept: string | undefined): "json" | "protobuf" {
  return negotiate(accept, { protobuf: true }) === "protobuf" ? "protobuf" : "json";
}

export const DISCOVERY_V2_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
export const TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";
export const PARTIAL_CONTENT_TYPE = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
