/**
 * Per-member monthly caps are enforced by the database (migration 0007, trigger on api_keys):
 * an increase of a key's spend or holds that would take its member past their cap raises
 * SQLSTATE GC001 and the statement rolls back. The money paths turn that into a refusal.
 */

export const MEMBER_CAP_SQLSTATE = "GC001";

/** The cap (µUSD) when `err` is the database refusing a member's spend, else null. */
export function memberCapRefusal(err: unknown): number | null {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === MEMBER_CAP_SQLSTATE) {
      const m = /member_cap_exceeded:(\d+)/.exec(String(e.message ?? ""));
      return m ? Number(m[1]) : 0;
    }
  }
  return null;
}

/** The same refusal raised from application code (moveMoney's check of a charge without a hold). */
export function memberCapError(capMicroUsd: number): Error {
  return Object.assign(new Error(`member_cap_exceeded:${capMicroUsd}`), { code: MEMBER_CAP_SQLSTATE });
}
