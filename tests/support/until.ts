/** Polls `f` until `ok` holds; past `ms`, fails naming what it last saw (never hands back a state it did not reach). */
export async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms; last seen: ${String(JSON.stringify(v)).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
