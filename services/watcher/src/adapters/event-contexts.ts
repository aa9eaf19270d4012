// The OpenTelemetry context of the latest watch event per object, kept while a publish of it is owed, so the
// publish span (and its live copy's) continues the event's trace without relying on a context manager.
import type { Context } from "@opentelemetry/api";
import type { ObjectKey } from "../domain/objects.ts";

export class EventContexts {
  private readonly contexts = new Map<ObjectKey, { readonly rv: string; readonly context: Context }>();

  set(key: ObjectKey, rv: string, context: Context): void {
    this.contexts.set(key, { rv, context });
  }

  /** The context of the event that produced exactly this version, if any. */
  get(key: ObjectKey, rv: string): Context | undefined {
    const entry = this.contexts.get(key);
    return entry?.rv === rv ? entry.context : undefined;
  }

  delete(key: ObjectKey): void {
    this.contexts.delete(key);
  }

  get size(): number {
    return this.contexts.size;
  }
}
