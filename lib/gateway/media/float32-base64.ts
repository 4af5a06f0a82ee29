/**
 * OpenAI's `encoding_format: "base64"`: the vector's IEEE-754 float32 values, little-endian,
 * concatenated (4 bytes per dimension), then base64. DataView fixes the byte order whatever
 * the machine's is; the official SDK decodes exactly this (`toFloat32Array`).
 */

export function encodeFloat32Base64(vector: ArrayLike<number>): string {
  const bytes = Buffer.alloc(vector.length * 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return bytes.toString("base64");
}

/** null when the text is not base64 of a whole number of float32 values. */
export function decodeFloat32Base64(text: string): Float32Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
