/** Exhaustiveness check for switches over unions: a new union member becomes a compile error here. */
export function assertNever(value: never, what = "value"): never {
  throw new UnreachableError(what, value);
}

export class UnreachableError extends Error {
  override readonly name = "UnreachableError";
  readonly value: unknown;

  constructor(what: string, value: unknown) {
    super(`unexpected ${what}: ${JSON.stringify(value)}`);
    this.value = value;
  }
}
