// The key a StatefulSet is known by inside the actor (actors, the cache, the per-set records): `<namespace>/<name>`.
// A namespace holds no slash, so the first one splits the key.

/** `<namespace>/<name>` of a StatefulSet. */
export type SetKey = string;

export function setKey(namespace: string, name: string): SetKey {
  return `${namespace}/${name}`;
}

export function splitSetKey(key: SetKey): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
