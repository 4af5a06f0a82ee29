// Preloaded into the gateway process by `npm run bench -- --profile streams|p99` (node --import):
// event-loop delay and garbage-collection pauses measured inside the process, one JSON line a
// second to BENCH_PROBE_FILE. SIGUSR2 opens a window and the next one closes it, writing the
// delay over the whole window (a p99 of all its samples, not of per-second p99s).
// Nothing in the product loads it.
import fs from "node:fs";
import { monitorEventLoopDelay, performance, PerformanceObserver } from "node:perf_hooks";

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  // The histogram records the interval between timer callbacks: resolution + delay.
  const resolution = 5;
  const h = monitorEventLoopDelay({ resolution });
  h.enable();
  let gc = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push([+(performance.timeOrigin + e.startTime).toFixed(3), +e.duration.toFixed(3), e.detail?.kind ?? 0]);
  }).observe({ entryTypes: ["gc"] });
  const ms = (ns) => +Math.max(0, ns / 1e6 - resolution).toFixed(2);
  const window = monitorEventLoopDelay({ resolution });
  let open = false;
  process.on("SIGUSR2", () => {
    open = !open;
    if (open) {
      window.reset();
      window.enable();
      return;
    }
    window.disable();
    const line = { t: Date.now(), window: { p50: ms(window.percentile(50)), p99: ms(window.percentile(99)), max: ms(window.max), samples: window.count } };
    fs.appendFileSync(file, JSON.stringify(line) + "\n");
  });
  setInterval(() => {
    const m = process.memoryUsage();
    const mb = (b) => Math.round(b / 1048576);
    const line = { t: Date.now(), p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), samples: h.count, gc, mem: { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) } };
    fs.appendFileSync(file, JSON.stringify(line) + "\n");
    h.reset();
    gc = [];
  }, 1000).unref();
}
