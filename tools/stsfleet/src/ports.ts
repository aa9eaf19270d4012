// Loopback ports for the children's /metrics and probe listeners, picked before the children start so stack.json
// can name them up front and a restarted child comes back on the same address.
import { createServer } from "node:net";
import type { Server } from "node:net";
import type { AddressInfo } from "node:net";

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Returns `count` distinct free ports on 127.0.0.1. All listeners stay open until every port is known, so the
 * ports differ from each other; another process may still take one before the child binds it (the supervisor
 * then picks new ones after repeated early exits).
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    const ports: number[] = [];
    for (const server of servers) ports.push(await listen(server));
    return ports;
  } finally {
    await Promise.all(
      servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))),
    );
  }
}
