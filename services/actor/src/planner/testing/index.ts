// Test support for the planner and, later, the executor and benchmarks: a store-backed fake API, a simulated
// kubelet, a reference executor and a driver that checks invariants after every step.
export { ApiError, FakeCluster } from "./cluster.ts";
export type { AuditEntry, ClusterOptions, Deletion, FailureRule, Kind, Verb } from "./cluster.ts";
export { SimulatedKubelet } from "./kubelet.ts";
export type { DefaultPolicy, PodPolicy } from "./kubelet.ts";
export { executePlan } from "./executor.ts";
export type { ExecuteHooks, ExecutionReport, RecordedEvent, StepReport } from "./executor.ts";
export {
  STANDARD_INVARIANTS,
  claimsRetained,
  isRunningAndReady,
  monotonicReadiness,
  ordinalOf,
  orderedCreation,
  podsOfSet,
  uniqueOrdinals,
  updateOrder,
} from "./invariants.ts";
export type { Invariant, InvariantContext } from "./invariants.ts";
export { Driver, InvariantViolation, NoConvergence, createHarness } from "./driver.ts";
export type { DriverOptions, Harness, TurnReport } from "./driver.ts";
export { claimTemplate, imageOf, newStatefulSet, setImage } from "./builders.ts";
export type { SetOptions } from "./builders.ts";
export {
  MODES,
  addFinalizer,
  claim,
  deletePod,
  mark,
  pod,
  podCreates,
  podDeletes,
  podNames,
  readyPodNames,
  removeFinalizers,
  revisionOf,
  scenario,
  tickUntilIdle,
} from "./scenario.ts";
export type { Mode, ScenarioOptions } from "./scenario.ts";
