// The object subjects of owned shards whose last K8S_OBJS message could not be read (undecodable, invalid, or about
// another object than the subject names), per shard and namespace (ADR 0088). Such a message is no value: a subject
// naming an object the cache does not hold stays unknown, not absent, and while one does, every set of that shard
// and namespace is incomplete (the subject's tokens cannot say which of them the object concerns). The ObjectStore
// keeps one of these beside its objects; it is empty in a healthy fleet, so the cache pays nothing for it.
import type { ObjectKind } from "#protocol";
import { setKey } from "./set-key.ts";
import type { SetKey } from "./set-key.ts";

/** An object subject of an owned shard, by what its tokens name. */
export interface SubjectRef {
  readonly shard: number;
  readonly kind: ObjectKind;
  readonly namespace: string;
  readonly name: string;
}

/** Subjects whose last message could not be read, in one shard and namespace. */
interface Group {
  /** `<kind>/<name>` -> whether the cache held no value of the object when the message came (it blocks). */
  readonly subjects: Map<string, boolean>;
  /** How many of them block the namespace's sets of the shard. */
  blocking: number;
}

const groupKeyOf = (shard: number, namespace: string) => `${shard}/${namespace}`;
const subjectKeyOf = (ref: SubjectRef) => `${ref.kind}/${ref.name}`;

export class UnreadableSubjects {
  /** `<shard>/<namespace>` -> its unreadable subjects. */
  private readonly groups = new Map<string, Group>();

  /** Marks the subject unreadable; `held`: the cache holds a value of the object. Returns whether it blocks. */
  mark(ref: SubjectRef, held: boolean): boolean {
    const groupKey = groupKeyOf(ref.shard, ref.namespace);
    let group = this.groups.get(groupKey);
    if (!group) {
      group = { subjects: new Map(), blocking: 0 };
      this.groups.set(groupKey, group);
    }
    const subjectKey = subjectKeyOf(ref);
    const blocking = group.subjects.get(subjectKey) ?? !held;
    if (!group.subjects.has(subjectKey)) {
      group.subjects.set(subjectKey, blocking);
      if (blocking) group.blocking++;
    }
    return blocking;
  }

  /** The subject is known again: whether it was unreadable, and whether its shard and namespace are unblocked now. */
  clear(ref: SubjectRef): { readonly wasUnreadable: boolean; readonly unblocks: boolean } {
    if (this.groups.size === 0) return { wasUnreadable: false, unblocks: false };
    const groupKey = groupKeyOf(ref.shard, ref.namespace);
    const group = this.groups.get(groupKey);
    const subjectKey = subjectKeyOf(ref);
    const blocking = group?.subjects.get(subjectKey);
    if (!group || blocking === undefined) return { wasUnreadable: false, unblocks: false };
    group.subjects.delete(subjectKey);
    if (blocking) group.blocking--;
    if (group.subjects.size === 0) this.groups.delete(groupKey);
    return { wasUnreadable: true, unblocks: blocking && group.blocking === 0 };
  }

  has(ref: SubjectRef): boolean {
    return this.groups.get(groupKeyOf(ref.shard, ref.namespace))?.subjects.has(subjectKeyOf(ref)) ?? false;
  }

  /** True while some subject is unreadable. */
  get any(): boolean {
    return this.groups.size > 0;
  }

  /** True while an unknown subject of the shard and namespace keeps its sets incomplete. */
  blocks(shard: number, namespace: string): boolean {
    if (this.groups.size === 0) return false;
    return (this.groups.get(groupKeyOf(shard, namespace))?.blocking ?? 0) > 0;
  }

  /** Sets of `shard` whose own StatefulSet subject is unknown: they exist as far as anyone can tell. */
  setsInShard(shard: number): SetKey[] {
    const keys: SetKey[] = [];
    for (const [groupKey, group] of this.groups) {
      const slash = groupKey.indexOf("/");
      if (Number(groupKey.slice(0, slash)) !== shard) continue;
      const namespace = groupKey.slice(slash + 1);
      for (const [subjectKey, blocking] of group.subjects) {
        const [kind, name = ""] = subjectKey.split("/");
        if (blocking && kind === "StatefulSet") keys.push(setKey(namespace, name));
      }
    }
    return keys;
  }

  /** Unknown subjects, blocking or not. */
  count(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.subjects.size;
    return count;
  }

  /** Forgets the shard's subjects (the shard moved away). */
  dropShard(shard: number): void {
    for (const groupKey of [...this.groups.keys()]) if (groupKey.startsWith(`${shard}/`)) this.groups.delete(groupKey);
  }
}
