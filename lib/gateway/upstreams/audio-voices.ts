/** Voice names across vendors: Gemini's prebuilt voices, and OpenAI's converted to one of a similar register (docs/audio.md). */

/** Gemini's prebuilt voices. */
export const GEMINI_VOICES = [
  "Zephyr", "Puck", "Charon", "Kore", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe", "Autonoe", "Enceladus", "Iapetus", "Umbriel", "Algieba", "Despina",
  "Erinome", "Algenib", "Rasalgethi", "Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux", "Pulcherrima", "Achird", "Zubenelgenubi", "Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat",
];
/** OpenAI's voice names → a Gemini voice. */
export const OPENAI_TO_GEMINI_VOICE: Record<string, string> = {
  alloy: "Zephyr", ash: "Orus", ballad: "Algieba", coral: "Kore", echo: "Puck", fable: "Aoede", onyx: "Charon",
  nova: "Leda", sage: "Autonoe", shimmer: "Despina", verse: "Enceladus", marin: "Sulafat", cedar: "Iapetus",
};
/** A Gemini voice name (from a Google-shaped request) → the OpenAI voice it stands for. */
export const GEMINI_TO_OPENAI_VOICE: Record<string, string> = Object.fromEntries(Object.entries(OPENAI_TO_GEMINI_VOICE).map(([oa, ge]) => [ge, oa]));
