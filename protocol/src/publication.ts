// The order in which the active watcher published object messages. Every object message, on K8S_OBJS and on its
// live subject, carries the header `Sts-Pub: <epoch>.<counter>`: the revision of the watcher lease at which the
// publishing watcher became active, and a counter of that activation's publishes. Kubernetes resourceVersions may
// only be compared for equality, so this is what lets a reader that receives one object on two paths (the live
// core-NATS copy and, later, the stream's copy) keep the newer one (ADR 0084).

export interface PublicationVersion {
  /** Lease revision of the watcher's activation: a later active watcher has a larger one. */
  readonly epoch: number;
  /** Publishes of that activation before this one. */
  readonly counter: number;
}

const VERSION_RE = /^(0|[1-9][0-9]{0,15})\.(0|[1-9][0-9]{0,15})$/;

export function formatPublicationVersion(version: PublicationVersion): string {
  return `${version.epoch}.${version.counter}`;
}

/** The version in a header value; undefined when absent or malformed (a reader then falls back to stream order). */
export function parsePublicationVersion(value: string | undefined): PublicationVersion | undefined {
  if (value === undefined) return undefined;
  const match = VERSION_RE.exec(value);
  if (!match) return undefined;
  const epoch = Number(match[1]);
  const counter = Number(match[2]);
  if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(counter)) return undefined;
  return { epoch, counter };
}

/** Negative when `a` was published before `b`, 0 for the same publication, positive after. */
export function comparePublicationVersions(a: PublicationVersion, b: PublicationVersion): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.counter - b.counter;
}

/** Hands out the versions of one watcher activation, in publish order. */
export class PublicationClock {
  private counter = 0;
  readonly epoch: number;

  constructor(epoch: number) {
    if (!Number.isSafeInteger(epoch) || epoch < 0) throw new RangeError(`a publication epoch is a lease revision, got ${epoch}`);
    this.epoch = epoch;
  }

  next(): PublicationVersion {
    return { epoch: this.epoch, counter: this.counter++ };
  }
}
