// Time and identity sources, injectable so tests can pin them.
import { randomUUID } from "node:crypto";

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** metav1.Time: RFC 3339 with second precision. */
export function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function newUid(): string {
  return randomUUID();
}

const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** The 5-character suffix the apiserver appends to generateName. */
export function randomSuffix(length = 5): string {
  let out = "";
  for (let i = 0; i < length; i++) out += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)] ?? "x";
  return out;
}
