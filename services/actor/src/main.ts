// stsfleet-actor: the process entry point. Parses the flags once, then runs the actor on the service shell
// (ADR 0093), which owns logging, metrics, the ops endpoints, NATS, signals and the shutdown order. The runtime is
// imported after parsing so --help and flag errors answer at once.
import { parseConfigOrExit } from "../../common/src/executor/config.ts";
import { ActorConfigSchema, actorCommand } from "./config.ts";

const config = parseConfigOrExit(actorCommand(), ActorConfigSchema, process.argv.slice(2));
const { runServiceMain } = await import("../../common/src/service.ts");
const { startActor } = await import("./actor.ts");
runServiceMain({ service: "actor", config, start: startActor });
