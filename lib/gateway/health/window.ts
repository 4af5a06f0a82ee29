/**
 * A sliding window of attempt counts: `buckets` slots of `windowMs / buckets` each, so old
 * attempts fall out in steps of one slot. O(1) per record; nothing allocated after creation.
 */
export interface Counts {
  ok: number;
  failed: number;
}

export class SlidingWindow {
  private readonly ok: Float64Array;
  private readonly failed: Float64Array;
  /** The slot index (time / slotMs) each slot last counted for. */
  private readonly epoch: Float64Array;
  private readonly slotMs: number;

  constructor(
    readonly windowMs: number,
    readonly buckets = 10,
  ) {
    this.slotMs = Math.max(1, Math.ceil(windowMs / buckets));
    this.ok = new Float64Array(buckets);
    this.failed = new Float64Array(buckets);
    this.epoch = new Float64Array(buckets).fill(-1);
  }

  /** Slot number of a time (also the key of shared counts: instances agree on slot boundaries). */
  slotOf(now: number): number {
    return Math.floor(now / this.slotMs);
  }

  add(now: number, okDelta: number, failedDelta: number): void {
    const n = this.slotOf(now);
    const i = n % this.buckets;
    if (this.epoch[i] !== n) {
      this.epoch[i] = n;
      this.ok[i] = 0;
      this.failed[i] = 0;
    }
    this.ok[i]! += okDelta;
    this.failed[i]! += failedDelta;
  }

  /** Sets one slot's counts (shared totals read back from the store). */
  set(slot: number, ok: number, failed: number): void {
    const i = slot % this.buckets;
    this.epoch[i] = slot;
    this.ok[i] = ok;
    this.failed[i] = failed;
  }

  counts(now: number): Counts {
    const current = this.slotOf(now);
    let ok = 0;
    let failed = 0;
    for (let i = 0; i < this.buckets; i++) {
      const e = this.epoch[i]!;
      if (e > current - this.buckets && e <= current) {
        ok += this.ok[i]!;
        failed += this.failed[i]!;
      }
    }
    return { ok, failed };
  }

  clear(): void {
    this.epoch.fill(-1);
  }
}
