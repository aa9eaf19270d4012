// Entity tags of the OpenAPI documents, as kube-openapi gives them: the upper-case hex SHA-512 of the served bytes,
// in double quotes, one per representation (the JSON and the protobuf /openapi/v2 differ). kubectl keeps the
// document in its discovery cache and revalidates it with If-None-Match; an unchanged document is a 304.
import { createHash } from "node:crypto";

export function entityTag(body: string | Uint8Array): string {
  return `"${createHash("sha512").update(body).digest("hex").toUpperCase()}"`;
}

/**
 * Whether an If-None-Match header names `etag`: `*`, or a comma-separated list compared weakly (a `W/` prefix is
 * ignored), as Go's http.ServeContent, which kube-openapi answers with, compares them.
 */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strip = (tag: string): string => (tag.startsWith("W/") ? tag.slice(2) : tag);
  return ifNoneMatch.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || strip(tag) === strip(etag);
  });
}
