/**
 * Health shared across instances through Redis (REDIS_URL). Nothing here is on the request
 * path: every `SYNC_MS` one pipeline pushes this instance's new counts and errors, reads the
 * window's totals and every circuit's shared state back, and merges them into memory. A
 * transition is claimed with one atomic script, so when two instances open the same circuit
 * at once only the first announces it (the other adopts its state). Redis down: each instance
 * keeps judging alone, and catches up when it returns.
 */
import type { Redis } from "ioredis";
import { logger } from "../../logger";
import type { ErrorSample, Transition } from "./circuit";
import type { Health } from "./health";

export const SYNC_MS = 1000;
const PREFIX = "gw:uh:";
const STATE = `${PREFIX}state`;
const LAST_ERRORS = 5;

interface SharedState {
  to: "open" | "closed";
  at: number;
  reason: string;
  openUntil?: number;
}

/**
 * The probe right of a half-open circuit: asked for only by an instance that has a request for
 * the entry; the first to ask holds it for the probe lease. Then it lapses (an instance asks
 * again only once its own right has lapsed), so a holder whose traffic went away cannot keep the
 * others from probing.
 */
const PROBE = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Sets the state unless another instance already made the same change (then returns theirs). */
const CLAIM = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local c = cjson.decode(cur)
  if c.to == ARGV[3] then
    if ARGV[3] == 'closed' then return cur end
    if tonumber(c.openUntil or 0) > tonumber(ARGV[4]) then return cur end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return false`;

export class SharedHealth {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastWarn = 0;
  /** This instance, as the holder of probe rights. */
  private readonly instance = `${process.pid}:${Math.random().toString(36).slice(2, 10)}`;

  constructor(
    private readonly redis: Redis,
    private readonly health: Health,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), SYNC_MS);
    this.timer.unref();
    // A request that wanted a probe right: ask now rather than at the next tick (off the request path).
    this.health.onProbeWanted = () => void this.sync();
    void this.sync();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.health.onProbeWanted = null;
  }

  /** True when this instance's transition is the one to announce; false when another instance made it first (its state is adopted). */
  async claim(t: Transition): Promise<boolean> {
    const value: SharedState = { to: t.to, at: t.at, reason: t.reason, ...(t.openUntil ? { openUntil: t.openUntil } : {}) };
    try {
      const theirs = (await this.redis.eval(CLAIM, 1, STATE, t.key, JSON.stringify(value), t.to, String(this.now()))) as string | null;
      if (!theirs) {
        if (t.to === "closed") await this.forgetWindow(t.key);
        return true;
      }
      this.health.apply(t.key, JSON.parse(theirs) as SharedState);
      return false;
    } catch (err) {
      this.warn(err);
      return true;
    }
  }

  /** Last errors of every entry, newest first (the admin view; other instances' included). */
  async lastErrors(keys: string[]): Promise<Map<string, ErrorSample[]>> {
    const out = new Map<string, ErrorSample[]>();
    if (!keys.length) return out;
    try {
      const p = this.redis.pipeline();
      for (const k of keys) p.lrange(`${PREFIX}err:${k}`, 0, LAST_ERRORS - 1);
      const res = (await p.exec()) ?? [];
      keys.forEach((k, i) => out.set(k, ((res[i]?.[1] as string[] | undefined) ?? []).map((s) => JSON.parse(s) as ErrorSample)));
    } catch (err) {
      this.warn(err);
    }
    return out;
  }

  /** One round: push, read back, merge. Never two at once. */
  sync(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round(): Promise<void> {
    const { counts, callers, errors } = this.health.drainPending();
    const windowMs = this.health.policy.windowMs;
    const ttlMs = windowMs * 2 + 10_000;
    try {
      const p = this.redis.pipeline();
      for (const [key, slots] of counts)
        for (const [slot, [ok, failed]] of slots) {
          const h = `${PREFIX}w:${slot}`;
          if (ok) p.hincrby(h, `${key}|ok`, ok);
          if (failed) p.hincrby(h, `${key}|f`, failed);
          p.pexpire(h, ttlMs);
        }
      // Failing callers per slot (decision 0035), apart from the counts: a field per (entry, caller).
      for (const [key, slots] of callers)
        for (const [slot, set] of slots) {
          for (const c of set) p.hset(`${PREFIX}c:${slot}`, `${key}|${c}`, 1);
          p.pexpire(`${PREFIX}c:${slot}`, ttlMs);
        }
      for (const { key, sample } of errors) {
        p.lpush(`${PREFIX}err:${key}`, JSON.stringify(sample));
        p.ltrim(`${PREFIX}err:${key}`, 0, LAST_ERRORS - 1);
        p.pexpire(`${PREFIX}err:${key}`, 7 * 86_400_000);
      }
      const anyCircuit = this.health.circuits.values().next().value;
      const slots: number[] = [];
      if (anyCircuit) {
        const current = anyCircuit.window.slotOf(this.now());
        for (let s = current - anyCircuit.window.buckets + 1; s <= current; s++) slots.push(s);
      }
      const pushed = p.length;
      for (const s of slots) p.hgetall(`${PREFIX}w:${s}`);
      for (const s of slots) p.hgetall(`${PREFIX}c:${s}`);
      p.hgetall(STATE);
      const res = (await p.exec()) ?? [];
      const read = res.slice(pushed).map((r) => (r?.[1] ?? {}) as Record<string, string>);
      slots.forEach((slot, i) => this.mergeSlot(slot, read[i] ?? {}));
      slots.forEach((slot, i) => this.mergeCallers(slot, read[slots.length + i] ?? {}));
      const states = read[2 * slots.length] ?? {};
      for (const [key, json] of Object.entries(states)) {
        try {
          this.health.apply(key, JSON.parse(json) as SharedState);
        } catch {
          // A malformed value from an older version: ignore it.
        }
      }
      await this.claimProbes();
      this.health.probesClaimed = true;
    } catch (err) {
      // Not pushed: count it again next round. Probes go back to each instance's own judgement.
      this.health.restorePending(counts, errors, callers);
      this.health.probesClaimed = false;
      this.warn(err);
    }
  }

  /** Asks for the probe right of every half-open circuit a request here wanted to probe. */
  private async claimProbes() {
    const now = this.now();
    const due = [...this.health.circuits.values()].filter((c) => c.wantsProbeRight && c.state(now) === "half_open" && now >= c.probeRightUntil);
    if (!due.length) return;
    const ttl = this.health.policy.probeLeaseMs + SYNC_MS;
    const p = this.redis.pipeline();
    for (const c of due) p.eval(PROBE, 1, `${PREFIX}probe:${c.key}`, this.instance, String(ttl));
    const res = (await p.exec()) ?? [];
    due.forEach((c, i) => {
      c.wantsProbeRight = false;
      if (res[i]?.[1] === 1) c.probeRightUntil = now + ttl;
    });
  }

  /** Sets each known circuit's slot to the shared total plus what was recorded here since the push. */
  private mergeSlot(slot: number, fields: Record<string, string>) {
    const totals = new Map<string, [number, number]>();
    for (const [field, v] of Object.entries(fields)) {
      const bar = field.lastIndexOf("|");
      const key = field.slice(0, bar);
      const t = totals.get(key) ?? [0, 0];
      t[field.slice(bar + 1) === "ok" ? 0 : 1] += Number(v) || 0;
      totals.set(key, t);
    }
    for (const [key, [ok, failed]] of totals) {
      const c = this.health.circuit(key);
      if (slot < c.countFrom) continue;
      const since = this.health.pending.get(key)?.get(slot) ?? [0, 0];
      c.window.set(slot, ok + since[0], failed + since[1]);
    }
  }

  /** Adds the failing callers other instances saw (those before a circuit's last close are ignored, as its counts are). */
  private mergeCallers(slot: number, fields: Record<string, string>) {
    for (const field of Object.keys(fields)) {
      const bar = field.lastIndexOf("|");
      const c = this.health.circuits.get(field.slice(0, bar));
      if (c && slot >= c.countFrom) c.window.addCaller(slot, field.slice(bar + 1));
    }
  }

  private async forgetWindow(key: string) {
    // The closing instance resets the shared window too, so the failures that opened it cannot reopen it.
    const c = this.health.circuits.get(key);
    if (!c) return;
    const current = c.window.slotOf(this.now());
    const p = this.redis.pipeline();
    for (let s = current - c.window.buckets; s <= current; s++) p.hdel(`${PREFIX}w:${s}`, `${key}|ok`, `${key}|f`);
    await p.exec();
  }

  private warn(err: unknown) {
    if (this.now() - this.lastWarn < 30_000) return;
    this.lastWarn = this.now();
    logger().warn({ err: (err as Error).message }, "upstream health: shared store unavailable; judging on this instance's counts");
  }
}
