/**
 * The import rules of the spine (docs/architecture.md), checked by dependency-cruiser from
 * scripts/architecture.test.ts (part of the unit tests, so `npm test` and CI run it) and by hand
 * with `npm run lint:deps`. Type-only imports count: a type is a dependency too.
 *
 * A known exception is written as a `pathNot` with a comment naming what removes it; delete it
 * when that lands (decision 0025).
 */

/** Tests compose freely (a worker test wires the gateway's task upstream in, as lib/runtime does). */
const TEST = "\\.test\\.tsx?$";

/** The modules of lib/tasks the gateway may use: the task port, lifecycle, rendering, the SSRF guard it shares (inline media fetches), the webhook signature (guardrail webhooks), the wake-up call for new work (not the worker it wakes). */
const TASKS_PUBLIC = [
  "task-upstream",
  "task-lifecycle",
  "task-render",
  "media-url",
  "retention",
  "ssrf",
  "operator-events",
  "guarded-dispatcher",
  "webhook-policy",
  "webhook-signature",
  "wake",
].join("|");

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A file must not reach itself through its imports: split the shared part out, or pass it in.",
      from: {},
      to: { circular: true },
    },
    {
      name: "components-not-to-db",
      severity: "error",
      comment:
        "Browser code imports only browser-safe modules: nothing it imports may reach db/ through any chain, not even for a type. Share the server's view types from lib/views.ts and the column values from lib/values.ts, which import nothing server-side.",
      from: { path: "^components/", pathNot: TEST },
      to: { path: "^db/", reachable: true },
    },
    {
      name: "billing-not-to-gateway",
      severity: "error",
      comment: "Money sits below the public API: lib/billing offers the port, the gateway calls it.",
      from: {
        path: "^lib/billing/",
        pathNot: TEST,
      },
      to: { path: "^lib/gateway/" },
    },
    {
      name: "protocols-not-to-upstreams",
      severity: "error",
      comment: "Client wire formats meet upstream wire formats only in canonical.ts (and the shared rules in lib/gateway/convert/).",
      from: { path: "^lib/gateway/protocols/", pathNot: TEST },
      to: { path: "^lib/gateway/upstreams/" },
    },
    {
      name: "upstreams-not-to-protocols",
      severity: "error",
      comment: "Upstream adapters know the canonical shape, never a client protocol.",
      from: { path: "^lib/gateway/upstreams/", pathNot: TEST },
      to: { path: "^lib/gateway/protocols/" },
    },
    {
      name: "tasks-not-to-gateway",
      severity: "error",
      comment: "lib/tasks only calls down: the worker reaches upstreams through its port (task-upstream.ts), which lib/runtime wires in.",
      from: { path: "^lib/tasks/", pathNot: TEST },
      to: { path: "^lib/gateway/" },
    },
    {
      name: "gateway-not-to-tasks-internals",
      severity: "error",
      comment: "The gateway uses the task lifecycle, never the worker, the webhook queue or the dispatcher behind them.",
      from: { path: "^lib/gateway/", pathNot: TEST },
      to: { path: "^lib/tasks/", pathNot: `^lib/tasks/(${TASKS_PUBLIC})\\.ts$` },
    },
    {
      name: "db-only-to-kernel",
      severity: "error",
      comment: "The schema and the client sit below every feature; they may use the process kernel only (and lib/values.ts, the columns' value types, which imports nothing).",
      from: { path: "^db/", pathNot: TEST },
      to: { path: "^lib/", pathNot: "^lib/(env|process-singleton|logger|values)\\.ts$" },
    },
    {
      name: "code-not-to-tests",
      severity: "error",
      comment: "Shipped code never imports a test, a fake upstream or a test helper.",
      from: { path: "^(lib|db|app|components)/", pathNot: "(\\.test\\.tsx?$|^db/testing\\.ts$|^lib/gateway/routes/text-test-server\\.ts$)" },
      to: { path: "(^tests/|\\.test\\.tsx?$|^db/testing\\.ts$)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^node_modules/|^\\.next/|^db/migrations/)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
