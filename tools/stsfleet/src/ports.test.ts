import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { freeLoopbackPorts } from "./ports.ts";

describe("freeLoopbackPorts", () => {
  it("returns distinct ports that can be bound on 127.0.0.1", async () => {
    const ports = await freeLoopbackPorts(6);
    assert.equal(new Set(ports).size, 6);
    for (const port of ports) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
