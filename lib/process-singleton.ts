/**
 * One value per process, whichever copy of a module asks for it. The custom server and Next's
 * bundled route handlers load separate copies of lib/, so module-level state would exist twice
 * (two catalogs, two pools, two loggers); the value lives on globalThis under Symbol.for(key).
 *
 * Returns a getter: `make` runs on the first call in the process (and again after a throw);
 * later calls read a closure variable. State that is replaced or reset (a test double, a closed
 * pool) goes in a box: `processSingleton("gateway.x", () => ({ current: undefined as X | undefined }))`.
 */
export function processSingleton<T>(key: string, make: () => T): () => T {
  const slot = Symbol.for(key);
  let held: { value: T } | undefined;
  return () => {
    if (held) return held.value;
    const g = globalThis as unknown as Record<symbol, { value: T } | undefined>;
    held = g[slot] ??= { value: make() };
    return held.value;
  };
}

/**
 * A value another library keeps on globalThis under Symbol.for(key), as it is (not boxed like
 * processSingleton's): the request context a serverless platform provides (lib/after-reply.ts).
 */
export function sharedGlobal<T>(key: string): T | undefined {
  return (globalThis as unknown as Record<symbol, T | undefined>)[Symbol.for(key)];
}
