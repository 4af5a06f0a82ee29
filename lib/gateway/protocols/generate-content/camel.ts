/**
 * Google's JSON parser accepts proto snake_case on input (`system_instruction`, `inline_data`)
 * and many official curl samples use it, so keys are normalised to camelCase before parsing.
 * User data (function args and responses, schemas) is left exactly as sent.
 */
const OPAQUE = new Set(["args", "response", "parameters", "parametersJsonSchema", "responseSchema", "responseJsonSchema", "properties"]);

export function camelKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (!v || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const ck = k.includes("_") ? k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : k;
    out[ck] = OPAQUE.has(ck) ? val : camelKeys(val);
  }
  return out;
}

/**
 * GC's `parameters` is an OpenAPI-subset Schema whose types the SDK writes in upper case
 * ("OBJECT"); JSON Schema consumers (OpenAI, Anthropic) need lower case.
 */
export function toJsonSchema(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toJsonSchema);
  if (!v || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === "type" && typeof val === "string") out[k] = val.toLowerCase();
    else if (k === "properties" && val && typeof val === "object")
      out[k] = Object.fromEntries(Object.entries(val).map(([pk, pv]) => [pk, toJsonSchema(pv)]));
    else out[k] = toJsonSchema(val);
  }
  return out;
}
