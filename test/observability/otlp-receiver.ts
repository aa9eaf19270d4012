// A tiny OTLP/HTTP trace receiver on loopback for tests: takes `POST /v1/traces` with the JSON encoding
// (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), keeps every span flattened with its service name, answers 200.
import { createServer } from "node:http";
import type { Server } from "node:http";
import { gunzipSync } from "node:zlib";

/** OTLP's span kinds (1-based, unlike the API's SpanKind). */
export const OTLP_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  links?: { traceId?: string; spanId?: string }[];
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: OtlpValue | undefined): string | number | boolean {
  if (value?.stringValue !== undefined) return value.stringValue;
  if (value?.intValue !== undefined) return Number(value.intValue);
  if (value?.doubleValue !== undefined) return value.doubleValue;
  if (value?.boolValue !== undefined) return value.boolValue;
  return "";
}

function attributesOf(list: readonly OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

/** Flattens one export request. */
export function flattenExport(body: OtlpExport): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service,
          traceId: span.traceId ?? "",
          spanId: span.spanId ?? "",
          parentSpanId: span.parentSpanId ?? "",
          name: span.name ?? "",
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId ?? "", spanId: link.spanId ?? "" })),
        });
      }
    }
  }
  return spans;
}

export interface OtlpReceiver {
  /** The base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Requests that were not a JSON trace export (content type, path, parse errors). */
  readonly rejected: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      try {
        if (request.method !== "POST" || request.url !== "/v1/traces") throw new Error(`${request.method} ${request.url}`);
        if (!(request.headers["content-type"] ?? "").includes("application/json")) throw new Error(`content-type ${request.headers["content-type"]}`);
        const raw = Buffer.concat(chunks);
        const text = (request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
        spans.push(...flattenExport(JSON.parse(text) as OtlpExport));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error));
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    spans,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The environment that points a service's SDK at the receiver, exporting within a fraction of a second. */
export function otlpEnvironment(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_BSP_SCHEDULE_DELAY: "200",
  };
}
