import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 of cryptographically random bytes (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

const PREFIXES = {
  account: "acct",
  user: "usr",
  key: "key",
  model: "mdl",
  request: "req",
  task: "task",
  delivery: "whd",
  hold: "hold",
} as const;

export type IdKind = keyof typeof PREFIXES;

/** Typed, prefixed ids: `newId("task")` → `task_…`. */
export function newId(kind: IdKind, length = 24): string {
  return `${PREFIXES[kind]}_${randomBase62(length)}`;
}
