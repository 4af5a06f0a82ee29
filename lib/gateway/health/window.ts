/**
 * A sliding window of attempt counts: `buckets` slots of `windowMs / buckets` each, so old
 * attempts fall out in steps of one slot. O(1) per record. Each slot also keeps the first few
 * distinct callers whose attempts failed (decision 0035): enough to tell one caller from several.
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
  /** Per slot, up to `maxCallers` distinct failing callers (more never changes a verdict). */
  private readonly failedBy: Set<string>[];

  constructor(
    readonly windowMs: number,
    readonly buckets = 10,
    readonly maxCallers = 1,
  ) {
    this.slotMs = Math.max(1, Math.ceil(windowMs / buckets));
    this.ok = new Float64Array(buckets);
    this.failed = new Float64Array(buckets);
    this.epoch = new Float64Array(buckets).fill(-1);
    this.failedBy = Array.from({ length: buckets }, () => new Set<string>());
  }

  /** Slot number of a time (also the key of shared counts: instances agree on slot boundaries). */
  slotOf(now: number): number {
    return Math.floor(now / this.slotMs);
  }

  add(now: number, okDelta: number, failedDelta: number, caller?: string): void {
    const n = this.slotOf(now);
    const i = this.slot(n);
    this.ok[i]! += okDelta;
    this.failed[i]! += failedDelta;
    if (failedDelta && caller) this.addCaller(n, caller);
  }

  /** Sets one slot's counts (shared totals read back from the store). */
  set(slot: number, ok: number, failed: number): void {
    const i = this.slot(slot);
    this.ok[i] = ok;
    this.failed[i] = failed;
  }

  /** A caller whose attempt failed in this slot (also the shared store's callers of other instances). */
  addCaller(slot: number, caller: string): void {
    const set = this.failedBy[this.slot(slot)]!;
    if (set.size < this.maxCallers) set.add(caller);
  }

  /** Distinct failing callers in the window, counted up to `maxCallers`. */
  failingCallers(now: number): number {
    const current = this.slotOf(now);
    const seen = new Set<string>();
    for (let i = 0; i < this.buckets; i++) {
      const e = this.epoch[i]!;
      if (e > current - this.buckets && e <= current) for (const c of this.failedBy[i]!) seen.add(c);
      if (seen.size >= this.maxCallers) break;
    }
    return Math.min(seen.size, this.maxCallers);
  }

  /** The index of slot `n`, emptied first when it last counted for an older slot. */
  private slot(n: number): number {
    const i = n % this.buckets;
    if (this.epoch[i] !== n) {
      this.epoch[i] = n;
      this.ok[i] = 0;
      this.failed[i] = 0;
      this.failedBy[i]!.clear();
    }
    return i;
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
