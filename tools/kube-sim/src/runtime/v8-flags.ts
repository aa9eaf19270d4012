// V8 tuning for a kube-sim server process (the CLI and the benchmark; not applied when the simulator is
// embedded in another process). Why: docs/adr/0025-kube-sim-no-allocation-site-pretenuring.md.
import { setFlagsFromString } from "node:v8";

export const NO_PRETENURING_FLAG = "--no-allocation-site-pretenuring";

/**
 * Turns off V8's allocation-site pretenuring for the rest of the process. With it on, a burst of
 * long-lived watch connections can make V8 decide that allocation sites in node's http, stream and
 * events code produce long-lived objects; from then on every request's objects are allocated in the
 * old generation, die at once, and keep what they point at (request and response bodies, headers)
 * alive through every young-generation collection until the next full GC: about 14 MB promoted per
 * scavenge and scavenge pauses of 10-100 ms under the benchmark load, in about half the runs.
 * Call it before the server starts; sites already decided keep their decision.
 */
export function disableAllocationSitePretenuring(): void {
  setFlagsFromString(NO_PRETENURING_FLAG);
}
