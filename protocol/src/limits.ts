// Sizes the fleet's NATS servers must accept. A Kubernetes object may be larger than nats-server's default
// max_payload of 1 MiB: the API server takes request bodies up to 3 MiB and etcd stores values up to 1.5 MiB, and a
// StatefulSet whose pod template carries a large environment or many containers is valid. With 1 MiB such a set and
// its pods could not cross the watcher's hop, and the set would never be reconciled (test/e2e/large-object.test.ts).
// Every nats-server config the project renders or ships sets max_payload to this (deploy/, tools/lib/nats-server.ts).

/** max_payload of the fleet's NATS servers: an encoded object envelope of any object etcd can hold, with headroom. */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
