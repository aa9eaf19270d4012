// The public surface of kube-sim's api module: what kube-apiserver v1.37 does to a served object between
// decoding a request and storing it (defaulting, canonical quantities, admission mutations, strategies)
// and how it rejects invalid ones (422 Status with causes). Pure: plain JSON in, plain JSON out.

export { RESOURCES, apiResourceList, findResource, groupVersionOf, qualifiedKind, resourceId } from "./resources.ts";
export type { ResourceId, ResourceInfo } from "./resources.ts";

export { prepareForCreate, prepareForUpdate, canonicalize, scaleOf, GENERATION_TRACKED } from "./strategy.ts";
export { validateCreate, validateUpdate } from "./validation/index.ts";
export type { Cause, CauseReason } from "./field.ts";
export { aggregateMessage } from "./field.ts";
export { invalidStatus, badRequestStatus, decodeError } from "./status.ts";

export { canonicalQuantity, canonicalQuantityExact, parseQuantity, formatQuantity, quantitiesEqual } from "./quantity.ts";
export type { Quantity, QuantityFormat, QuantityParseResult } from "./quantity.ts";

export { convertEvent } from "./events.ts";
export { formatLabelSelector, labelSelectorAsSelector, selectorMatches } from "./selector.ts";
export { needsClusterIP } from "./defaults/core.ts";
export { DEFAULT_OPTIONS, DEFAULT_FEATURE_GATES } from "./options.ts";
export type { ApiOptions, ApiOptionsInput, FeatureGates } from "./options.ts";
