/** Request-log token columns are 64-bit (pg returns them as strings): read them back as numbers. */
export function tokensAsNumbers<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const [k, v] of Object.entries(out)) if (k.endsWith("_tokens") && typeof v === "string") out[k] = Number(v);
  return out as T;
}
