// Composition root of the pvc-provisioner process: parse the flags once, then run. The runtime (NATS and
// Kubernetes clients) is imported after parsing so --help and flag errors answer at once.
import { pvcProvisionerCommand, PvcProvisionerConfigSchema } from "./config.ts";
import { parseConfigOrExit } from "../../common/src/executor/config.ts";

const config = parseConfigOrExit(pvcProvisionerCommand(), PvcProvisionerConfigSchema, process.argv.slice(2));
const { runExecutorProcess } = await import("../../common/src/executor/process.ts");
const { startPvcProvisioner } = await import("./provisioner.ts");
runExecutorProcess({ service: "pvc-provisioner", config, start: (settings, deps) => startPvcProvisioner(settings, deps) });
