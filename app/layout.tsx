import type { Metadata } from "next";
import "./globals.css";

// Every page renders per request: its scripts carry the request's CSP nonce (proxy.ts), which a
// page prerendered at build time could not.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Generation Gateway",
  description: "One prepaid API key for text, embeddings, images and video, over the OpenAI, Anthropic and Gemini protocols.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-zinc-900 antialiased">{children}</body>
    </html>
  );
}
