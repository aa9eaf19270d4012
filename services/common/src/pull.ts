// Options for JetStream pull consumers (`consumer.consume()`). nats.js defaults `expires` to 30 s, and after a
// reconnect it retries its "does my consumer still exist" check with a back-off of `expires` (jittered up to
// 30 s) whenever the first check fails, which it does while a restarted server or a cluster that lost a node is
// still recovering JetStream. A chaos test saw an actor's shard feeds stall for ~40 s after a 2 s nats-server
// restart because of it. With 5 s, a pull expires (and is re-issued) every 5 s, the server heartbeats every 2.5 s,
// and a lost or stale consumer is noticed and recreated within about 5 s.
export const PULL_EXPIRES_MS = 2_000;
