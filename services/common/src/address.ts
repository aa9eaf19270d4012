/** A bind address as in controller-runtime flags: ":8080", "127.0.0.1:0", "0" (disabled). */
export interface BindAddress {
  readonly host: string;
  readonly port: number;
}

export class BindAddressError extends Error {
  override readonly name = "BindAddressError";
  readonly value: string;

  constructor(value: string, problem: string) {
    super(`invalid bind address ${JSON.stringify(value)}: ${problem}`);
    this.value = value;
  }
}

/** Parses "host:port", ":port" (all interfaces) or "0" (disabled, returns undefined). */
export function parseBindAddress(value: string): BindAddress | undefined {
  if (value === "0" || value === "") return undefined;
  const colon = value.lastIndexOf(":");
  if (colon < 0) throw new BindAddressError(value, "expected host:port or :port");
  const host = value.slice(0, colon).replace(/^\[(.*)\]$/, "$1") || "0.0.0.0";
  const portText = value.slice(colon + 1);
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new BindAddressError(value, "port must be 0..65535");
  }
  return { host, port: Number(portText) };
}
