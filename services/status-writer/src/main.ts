// Composition root of the status-writer process: parse the flags once, then run. The runtime (NATS and
// Kubernetes clients) is imported after parsing so --help and flag errors answer at once.
import { parseConfigOrExit } from "../../common/src/executor/config.ts";
import { StatusWriterConfigSchema, statusWriterCommand } from "./config.ts";

const config = parseConfigOrExit(statusWriterCommand(), StatusWriterConfigSchema, process.argv.slice(2));
const { runExecutorProcess } = await import("../../common/src/executor/process.ts");
const { startStatusWriter } = await import("./writer.ts");
runExecutorProcess({ service: "status-writer", config, start: (settings, deps) => startStatusWriter(settings, deps) });
