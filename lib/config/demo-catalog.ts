/**
 * The built-in `demo` upstream's catalog, seeded when no config file is given, so every part of
 * the product works offline right after `npm start`. Same routing, billing and task code as a
 * real upstream. Prices in USD, like the config file.
 */
import type { GatewayConfig } from "./schema";

export const demoCatalog: GatewayConfig = {
  upstreams: [{ id: "demo", protocol: "demo" }],
  models: [
    {
      id: "demo-chat",
      kind: "text",
      upstream: "demo",
      ownedBy: "demo",
      price: { inputPerMTok: 0.5, outputPerMTok: 1.5, batchDiscount: 0.5 },
      maxOutputTokens: 1024,
      contextWindow: 32_768,
      inputModalities: ["text", "image"],
    },
    { id: "demo-embed", kind: "embedding", upstream: "demo", ownedBy: "demo", price: { inputPerMTok: 0.02, batchDiscount: 0.5 } },
    {
      id: "demo-image",
      kind: "image",
      upstream: "demo",
      ownedBy: "demo",
      // The spec's documented image model: 0.021–0.26 USD by quality and size.
      price: {
        perImage: {
          "low:1024x1024": 0.021,
          "low:1536x1024": 0.032,
          "low:1024x1536": 0.032,
          "medium:1024x1024": 0.063,
          "medium:1536x1024": 0.095,
          "medium:1024x1536": 0.095,
          "high:1024x1024": 0.17,
          "high:1536x1024": 0.26,
          "high:1024x1536": 0.26,
        },
      },
    },
    // The spec's cheaper image model: one flat price, no quality tiers.
    { id: "demo-image-mini", kind: "image", upstream: "demo", ownedBy: "demo", price: { perImage: { "*": 0.02 } } },
    // Audio (docs/audio.md): priced like tts-1 (per character) and whisper-1 (per second of the upload).
    { id: "demo-tts", kind: "speech", upstream: "demo", ownedBy: "demo", price: { perMCharacters: 15 } },
    { id: "demo-stt", kind: "transcription", upstream: "demo", ownedBy: "demo", price: { perSecond: 0.0001 } },
    { id: "demo-video", kind: "video", family: "t2v", upstream: "demo", ownedBy: "demo", price: { perVideo: 0.25 } },
  ],
};
