// Answers probes on `fleet.probe.<name>` (docs/adr/0071-fleet-ownership-and-fencing.md): a member subscribes before
// it announces itself, or a peer's first probe would get "no responders" and declare it dead. The answer names the
// incarnation and whether the member is leaving.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { codecs, probeSubjects } from "#protocol";

export interface ProbeResponderOptions {
  readonly connection: NatsConnection;
  readonly name: string;
  readonly incarnation: () => string;
  readonly leaving: () => boolean;
}

export class ProbeResponder {
  private readonly options: ProbeResponderOptions;
  private subscription: Subscription | undefined;

  constructor(options: ProbeResponderOptions) {
    this.options = options;
  }

  /** Resolves once the server has the subscription: probes are answered from then on. */
  async start(): Promise<void> {
    this.subscription = this.options.connection.subscribe(probeSubjects.build(this.options.name), {
      callback: (_error, message) => {
        message.respond(
          codecs.probeAck.encode({
            type: "probe.ack",
            member: this.options.name,
            incarnation: this.options.incarnation(),
            state: this.options.leaving() ? "leaving" : "alive",
          }),
        );
      },
    });
    await this.options.connection.flush();
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}
