// node:test wrapper around the nats-server launcher: the server is stopped and its store removed after the
// enclosing suite (or file), whatever the outcome.
import { after } from "node:test";
import { startNatsServer } from "../../tools/lib/nats-server.ts";
import type { NatsServerOptions, RunningNatsServer } from "../../tools/lib/nats-server.ts";

export async function useNatsServer(options: NatsServerOptions = {}): Promise<RunningNatsServer> {
  const server = await startNatsServer(options);
  after(() => server.stop());
  return server;
}
