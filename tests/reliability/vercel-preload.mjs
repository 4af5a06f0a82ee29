// Preloaded into a gateway process by the Vercel model (vercel-model.ts): the request context
// Vercel's Node runtime provides, whose waitUntil(promise) keeps the instance running until the
// promise settles (what @vercel/functions' waitUntil and Next's after() use there). It counts
// that work and tells the controller over a Unix socket: "pending N" on every change, and in
// answer to any line it sends, once the event loop has turned (so work registered by the
// handler that just answered is counted).
import net from "node:net";

let pending = 0;
const peers = new Set();
const tell = (c) => c.write(`pending ${pending}\n`);
const tellAll = () => peers.forEach(tell);

globalThis[Symbol.for("@vercel/request-context")] = {
  get: () => ({
    waitUntil(p) {
      pending++;
      tellAll();
      Promise.resolve(p).finally(() => {
        pending--;
        tellAll();
      });
    },
  }),
};

const socket = process.env.VERCEL_MODEL_SOCKET;
// Only this process is the instance: processes it starts (Next's workers) do not inherit it.
delete process.env.VERCEL_MODEL_SOCKET;
delete process.env.NODE_OPTIONS;
if (socket) {
  net
    .createServer((c) => {
      peers.add(c);
      c.on("close", () => peers.delete(c));
      c.on("error", () => {});
      c.on("data", () => setImmediate(() => setTimeout(() => tell(c), 5)));
    })
    .on("error", (err) => console.error("vercel model preload:", err.message))
    .listen(socket)
    .unref();
}
