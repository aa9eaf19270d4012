// The label selector lives in protocol/ (protocol/src/selector.ts), shared with the watcher; the planner's modules
// keep importing it from here.
export { compileSelector, selectorMatches } from "#protocol";
export type { CompiledSelector, SelectorResult } from "#protocol";
