import { trace } from "@opentelemetry/api";
import pino from "pino";
import type { Logger } from "pino";
import pretty from "pino-pretty";

export type LogFormat = "json" | "pretty";
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
export type { Logger };

export interface LoggerOptions {
  readonly service: string;
  readonly instance: string;
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Defaults to stdout. */
  readonly destination?: NodeJS.WritableStream;
}

/** pino JSON logs carrying the active span's trace and span ids; `pretty` for humans. */
export function createLogger(options: LoggerOptions): Logger {
  const base = { service: options.service, instance: options.instance };
  const mixin = () => {
    const context = trace.getActiveSpan()?.spanContext();
    return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
  };
  const stream =
    options.format === "pretty"
      ? pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", sync: true })
      : (options.destination ?? process.stdout);
  return pino({ level: options.level, base, mixin, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}
