/** Quickstart code for the Docs page, with the gateway's real base URL filled in. */
export interface Snippet {
  id: string;
  label: string;
  lang: string;
  code: string;
}

export function quickstart(base: string, chatModel = "demo-chat"): Snippet[] {
  return [
    {
      id: "curl",
      label: "curl",
      lang: "bash",
      code: `export GATEWAY_API_KEY="sk-..."   # from API Keys

# Models this key may use
curl ${base}/v1/models \\
  -H "Authorization: Bearer $GATEWAY_API_KEY"

# Chat completion (add "stream": true for server-sent events)
curl ${base}/v1/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${chatModel}", "messages": [{"role": "user", "content": "Hello!"}]}'`,
    },
    {
      id: "openai",
      label: "OpenAI SDK",
      lang: "ts",
      code: `import OpenAI from "openai";

const client = new OpenAI({
  baseURL: "${base}/v1",
  apiKey: process.env.GATEWAY_API_KEY,
});

const completion = await client.chat.completions.create({
  model: "${chatModel}",
  messages: [{ role: "user", content: "Hello!" }],
});
console.log(completion.choices[0].message.content);

// Responses API, embeddings, images and videos work the same way:
// client.responses.create(…), client.embeddings.create(…),
// client.images.generate(…), client.videos.create(…)`,
    },
    {
      id: "anthropic",
      label: "Anthropic SDK",
      lang: "ts",
      code: `import Anthropic from "@anthropic-ai/sdk";

// The Anthropic SDK appends /v1/messages itself: give it the address without /v1.
const client = new Anthropic({
  baseURL: "${base}",
  apiKey: process.env.GATEWAY_API_KEY,
});

const message = await client.messages.create({
  model: "${chatModel}",
  max_tokens: 256,
  messages: [{ role: "user", content: "Hello!" }],
});
console.log(message.content);`,
    },
    {
      id: "google",
      label: "Google Gen AI SDK",
      lang: "ts",
      code: `import { GoogleGenAI } from "@google/genai";

const ai = new GoogleGenAI({
  apiKey: process.env.GATEWAY_API_KEY,
  httpOptions: { baseUrl: "${base}" },
});

const response = await ai.models.generateContent({
  model: "${chatModel}",
  contents: "Hello!",
});
console.log(response.text);`,
    },
    {
      id: "python",
      label: "Python (openai)",
      lang: "python",
      code: `from openai import OpenAI
import os

client = OpenAI(base_url="${base}/v1", api_key=os.environ["GATEWAY_API_KEY"])
r = client.chat.completions.create(
    model="${chatModel}",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(r.choices[0].message.content)`,
    },
  ];
}

export function videoSnippet(base: string): string {
  return `# Submit a video task (10 seconds); the webhook gets the final Task object
curl ${base}/v1/videos \\
  -H "Authorization: Bearer $GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "demo-video", "prompt": "a paper boat on a lake", "seconds": "10",
       "size": "1280x720", "webhook": "https://example.com/hooks/video",
       "webhook_secret": "a-long-random-secret"}'

# Poll every 10–20 s until status is completed or failed
curl ${base}/v1/tasks/task_... -H "Authorization: Bearer $GATEWAY_API_KEY"

# Download the MP4 once completed
curl -L ${base}/v1/videos/task_.../content -H "Authorization: Bearer $GATEWAY_API_KEY" -o video.mp4`;
}

export const WEBHOOK_VERIFY = `import crypto from "node:crypto";

/**
 * Verifies X-Shim-Signature: "t=<unix seconds>,v1=<hex HMAC-SHA256 of \`\${t}.\${rawBody}\`>".
 * Use the raw request body bytes exactly as received (not re-serialized JSON).
 */
export function verifyGatewayWebhook(rawBody: string, header: string, secret: string, toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceS) return false;
  const expected = crypto.createHmac("sha256", secret).update(\`\${t}.\${rawBody}\`).digest();
  const given = Buffer.from(parts.v1 ?? "", "hex");
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

// Express: app.post("/hooks/video", express.raw({ type: "application/json" }), (req, res) => {
//   if (!verifyGatewayWebhook(req.body.toString("utf8"), req.get("x-shim-signature") ?? "", SECRET))
//     return res.sendStatus(400);
//   const task = JSON.parse(req.body);          // dedupe on task.id + task.status
//   res.sendStatus(200);                        // answer 2xx within 10 seconds
// });`;
