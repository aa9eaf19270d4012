// Per set, the newest generation a plan in the intent log was made from, learnt when a set's last record is read (a
// takeover reads every set's). The set's next turn takes it and waits until the cache shows that generation
// (runtime/turn.ts): a cache behind what an owner already acted on must not plan from the older spec (ADR 0084).
import type { Intent } from "#protocol";
import type { SetKey } from "./object-store.ts";

export interface GenerationFloor {
  readonly uid: string;
  readonly generation: number;
}

export class GenerationFloors {
  private readonly floors = new Map<SetKey, GenerationFloor>();

  /** A set's last record, as the intent log read it: plans raise the set's floor (per incarnation of the set). */
  note(key: SetKey, intent: Intent): void {
    if (intent.type !== "intent.plan" || intent.setGeneration === undefined) return;
    const known = this.floors.get(key);
    if (known && known.uid === intent.set.uid && known.generation >= intent.setGeneration) return;
    this.floors.set(key, { uid: intent.set.uid, generation: intent.setGeneration });
  }

  /** The set's floor, once: the turn that takes it waits for it, later turns do not. */
  take(key: SetKey): GenerationFloor | undefined {
    const floor = this.floors.get(key);
    this.floors.delete(key);
    return floor;
  }

  /** Forgets the floors of sets this member no longer owns. */
  forget(keys: Iterable<SetKey>): void {
    for (const key of keys) this.floors.delete(key);
  }
}
