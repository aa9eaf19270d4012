// What the emulated kube-apiserver is configured with. Defaults are v1.37's (ADR 0036).

/** Feature gates that change what the api module stores or accepts. */
export interface FeatureGates {
  /** KEP-961, beta and on by default in 1.37: defaults `rollingUpdate.maxUnavailable` to 1. */
  readonly MaxUnavailableStatefulSet: boolean;
}

export interface ApiOptions {
  readonly featureGates: FeatureGates;
  /**
   * RFC 3339 time of the request, for fields a strategy stamps (PersistentVolume
   * `status.lastPhaseTransitionTime`). Omitted: those fields are left unset.
   */
  readonly now?: string;
}

export const DEFAULT_FEATURE_GATES: FeatureGates = { MaxUnavailableStatefulSet: true };

export const DEFAULT_OPTIONS: ApiOptions = { featureGates: DEFAULT_FEATURE_GATES };

export interface ApiOptionsInput {
  readonly featureGates?: Partial<FeatureGates>;
  readonly now?: string;
}

export function resolveOptions(input?: ApiOptionsInput): ApiOptions {
  if (input === undefined) return DEFAULT_OPTIONS;
  const featureGates = { ...DEFAULT_FEATURE_GATES, ...input.featureGates };
  return input.now === undefined ? { featureGates } : { featureGates, now: input.now };
}
