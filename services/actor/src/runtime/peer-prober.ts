// Finds dead peers (docs/adr/0071-fleet-ownership-and-fencing.md, Death): probes each one several times a second on
// `fleet.probe.<name>`, and marks a peer dead by compare-and-set on the member record revision it observed, when a
// probe still gets "no responders" noRespondersConfirmMs after the first one (its NATS connection is gone), or when
// its record has not changed for a lease duration of this member's connected time (domain/liveness.ts).
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { errors as natsErrors } from "@nats-io/transport-node";
import { codecs, memberKeys, probeSubjects } from "#protocol";
import type { MemberRecord } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import type { LivenessObserver } from "../domain/liveness.ts";
import type { MemberView } from "./fleet-watch.ts";
import type { DeathReason, FleetTimings } from "./ownership-options.ts";

export interface PeerProberOptions {
  readonly connection: NatsConnection;
  readonly members: KV;
  readonly name: string;
  readonly incarnation: () => string;
  readonly memberViews: ReadonlyMap<string, MemberView>;
  readonly liveness: LivenessObserver;
  readonly leaseDurationMs: number;
  readonly timings: Pick<FleetTimings, "probeIntervalMs" | "probeTimeoutMs" | "probeGraceAfterReconnectMs" | "noRespondersConfirmMs">;
  readonly now: () => number;
  readonly logger: Logger;
  /** False while leaving or self-fenced: such a member declares nobody dead. */
  readonly mayProbe: () => boolean;
  readonly onDeath?: (event: { member: string; why: DeathReason }) => void;
}

export class PeerProber {
  private readonly options: PeerProberOptions;
  /** Probes awaiting an answer, per peer (bounded: a paused peer holds each one until it times out). */
  private readonly probesInFlight = new Map<string, number>();
  /** Peers whose last probe got "no responders": when the first of the current run of them came back. */
  private readonly noRespondersSinceMs = new Map<string, number>();
  private reconnectedAtMs = 0;

  constructor(options: PeerProberOptions) {
    this.options = options;
  }

  /** This member reconnected to NATS: probe failures prove nothing for a while (peers reconnect too). */
  reconnected(nowMs: number): void {
    this.reconnectedAtMs = nowMs;
  }

  /**
   * Probes every peer, then marks dead those whose lease ran out. A probe in flight does not hold back the next one:
   * a peer killed after a probe reached it never answers that probe (it times out after probeTimeoutMs), while the
   * next one gets "no responders" at once.
   */
  async probePeers(): Promise<void> {
    if (!this.options.mayProbe()) return;
    const { timings } = this.options;
    const graceOver = this.options.now() - this.reconnectedAtMs >= timings.probeGraceAfterReconnectMs;
    const maxInFlight = Math.ceil(timings.probeTimeoutMs / timings.probeIntervalMs) + 1;
    for (const [name, view] of this.options.memberViews) {
      if (name === this.options.name || !view.record || view.record.state === "dead") continue;
      const inFlight = this.probesInFlight.get(name) ?? 0;
      if (inFlight >= maxInFlight) continue;
      this.probesInFlight.set(name, inFlight + 1);
      void this.probe(name, view.revision, graceOver);
    }
    const expired = this.options.liveness.expired(this.options.now(), this.options.leaseDurationMs);
    for (const { member, revision } of expired) await this.markDead(member, revision, "lease-expired");
  }

  private async probe(name: string, revision: number, graceOver: boolean): Promise<void> {
    const sentMs = this.options.now();
    // An answer or a timeout clears a run of "no responders" only if the probe was sent after the run began:
    // an older probe says nothing about the peer since then.
    const clearIfNewer = () => {
      const sinceMs = this.noRespondersSinceMs.get(name);
      if (sinceMs !== undefined && sentMs >= sinceMs) this.noRespondersSinceMs.delete(name);
    };
    const request = codecs.probe.encode({ type: "probe", from: this.options.name, incarnation: this.options.incarnation(), sentAtMs: Date.now() });
    try {
      await this.options.connection.request(probeSubjects.build(name), request, { timeout: this.options.timings.probeTimeoutMs });
      clearIfNewer();
    } catch (error) {
      // Only "no responders" is proof: the member's connection (and with it its subscription) is gone.
      // A timeout may be a paused or slow peer; the lease path decides those.
      const noResponders = error instanceof natsErrors.NoRespondersError || (error instanceof natsErrors.RequestError && error.isNoResponders());
      if (!graceOver) this.noRespondersSinceMs.delete(name);
      else if (!noResponders) clearIfNewer();
      else await this.noResponders(name, revision, sentMs);
    } finally {
      const left = (this.probesInFlight.get(name) ?? 1) - 1;
      if (left > 0) this.probesInFlight.set(name, left);
      else this.probesInFlight.delete(name);
    }
  }

  private async noResponders(name: string, revision: number, sentMs: number): Promise<void> {
    const sinceMs = this.noRespondersSinceMs.get(name);
    if (sinceMs === undefined) {
      this.noRespondersSinceMs.set(name, sentMs);
      // Ask again once the confirmation window is over instead of waiting for the next probe round.
      setTimeout(() => void this.probePeers(), this.options.timings.noRespondersConfirmMs).unref();
      return;
    }
    if (sentMs - sinceMs < this.options.timings.noRespondersConfirmMs) return;
    this.noRespondersSinceMs.delete(name);
    await this.markDead(name, revision, "no-responders");
  }

  private async markDead(member: string, observedRevision: number, why: DeathReason): Promise<void> {
    const view = this.options.memberViews.get(member);
    if (!view?.record || view.record.state === "dead" || view.revision !== observedRevision) return;
    const dead: MemberRecord = { ...view.record, state: "dead" };
    try {
      await this.options.members.update(memberKeys.build(member), codecs.memberRecord.encode(dead), observedRevision);
      this.options.logger.warn({ member, why }, "declared member dead");
      this.options.liveness.forget(member);
      this.options.onDeath?.({ member, why });
    } catch {
      // It renewed in the meantime (alive after all) or another peer marked it first.
    }
  }
}
