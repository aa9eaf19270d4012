// Liveness by observation, not timestamps (client-go's rule): a peer is expired once this observer has seen the
// same revision of its member record for leaseDurationMs on its own monotonic clock. The clock pauses while the
// observer is disconnected from NATS and every timer restarts on reconnect, so a NATS outage never makes every
// member declare every other member dead.

interface Observation {
  revision: number;
  sinceMs: number;
}

export class LivenessObserver {
  private readonly observations = new Map<string, Observation>();
  private disconnected = false;

  /** A member record was seen (watch event or read) with this revision. */
  observe(member: string, revision: number, nowMs: number): void {
    const current = this.observations.get(member);
    if (!current || current.revision !== revision) this.observations.set(member, { revision, sinceMs: nowMs });
  }

  forget(member: string): void {
    this.observations.delete(member);
  }

  disconnect(): void {
    this.disconnected = true;
  }

  /** Restarts every observation: time spent disconnected proves nothing about peers. */
  reconnect(nowMs: number): void {
    this.disconnected = false;
    for (const observation of this.observations.values()) observation.sinceMs = nowMs;
  }

  /** How long this observer has seen the same revision of the member's record (undefined: not observed). */
  silentForMs(member: string, nowMs: number): number | undefined {
    const observation = this.observations.get(member);
    return observation === undefined ? undefined : nowMs - observation.sinceMs;
  }

  /** Members whose record has not changed for leaseDurationMs of connected time, with the revision seen. */
  expired(nowMs: number, leaseDurationMs: number): { member: string; revision: number }[] {
    if (this.disconnected) return [];
    const result: { member: string; revision: number }[] = [];
    for (const [member, observation] of this.observations) {
      if (nowMs - observation.sinceMs >= leaseDurationMs) result.push({ member, revision: observation.revision });
    }
    return result;
  }
}
