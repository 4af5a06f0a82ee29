/**
 * How each coding-agent CLI (installed as a dev dependency) is run against the gateway: its
 * non-interactive mode, the gateway as its base URL with a gateway key, a fresh HOME with every
 * config file it reads written there, telemetry / update checks / non-essential traffic off, and
 * file writes auto-approved inside the task's own working directory. Nothing it could reach
 * beyond loopback is configured; any attempt goes to `proxy` (the test's trap) when one is given.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const BIN = path.resolve(import.meta.dirname, "../../node_modules/.bin");

export type CliName = "claude" | "codex" | "gemini" | "opencode";

export interface CliRun {
  cli: CliName;
  /** Gateway base URL (no path). */
  gateway: string;
  key: string;
  /** Gateway model id. */
  model: string;
  /** Fresh temporary directories. */
  home: string;
  workdir: string;
  prompt: string;
  timeoutMs: number;
  /** A proxy for everything but loopback (tests: a trap that records and refuses). */
  proxy?: string;
  /** Codex: declare the provider's Responses WebSocket transport (`supports_websockets`). */
  websockets?: boolean;
  /**
   * Codex: compact on the server (`compaction_trigger`) once a response's tokens reach this.
   * Codex does so for a provider named "OpenAI" — what the README's `OPENAI_BASE_URL` setup is.
   */
  remoteCompactAt?: number;
  /** Codex: `model_context_window` (a small one drives a session past its context limit). */
  contextWindow?: number;
  /** Aborting it kills the CLI's process group (a user hanging up mid-answer). */
  signal?: AbortSignal;
  /** Let the CLI retry what it retries (Claude Code, Codex): the matrix fails fast with 0; fault cells need the agent's own back-off. */
  retries?: number;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** Environment shared by every CLI: no proxy, no inherited vendor keys or config paths. */
function baseEnv(home: string, proxy: string | undefined): Record<string, string> {
  const keep = ["PATH", "LANG", "TERM", "SHELL", "USER", "LOGNAME"];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k]) env[k] = process.env[k]!;
  return {
    ...env,
    HOME: home,
    // Crash reports and scratch files stay in the run's own folder too.
    TMPDIR: path.join(home, "tmp"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ...(proxy ? { HTTPS_PROXY: proxy, HTTP_PROXY: proxy, ALL_PROXY: proxy, https_proxy: proxy, http_proxy: proxy, all_proxy: proxy } : {}),
    CI: "1",
    NO_COLOR: "1",
  };
}

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export function command(r: CliRun): { cmd: string; args: string[]; env: Record<string, string> } {
  const env = baseEnv(r.home, r.proxy);
  fs.mkdirSync(env.TMPDIR!, { recursive: true });
  switch (r.cli) {
    case "claude":
      // code.claude.com/docs/en/env-vars
      Object.assign(env, {
        ANTHROPIC_BASE_URL: r.gateway,
        ANTHROPIC_API_KEY: r.key,
        CLAUDE_CONFIG_DIR: path.join(r.home, ".claude"),
        ANTHROPIC_MODEL: r.model,
        ANTHROPIC_SMALL_FAST_MODEL: r.model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: r.model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: r.model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: r.model,
        CLAUDE_CODE_SUBAGENT_MODEL: r.model,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_BUG_COMMAND: "1",
        CLAUDE_CODE_MAX_RETRIES: String(r.retries ?? 0),
        API_TIMEOUT_MS: "30000",
      });
      return {
        cmd: path.join(BIN, "claude"),
        args: ["-p", r.prompt, "--model", r.model, "--permission-mode", "acceptEdits", "--allowedTools", "Write", "--output-format", "text"],
        env,
      };
    case "codex": {
      // developers.openai.com/codex/config-reference: a custom Responses provider in CODEX_HOME.
      const codexHome = path.join(r.home, ".codex");
      write(
        path.join(codexHome, "config.toml"),
        [
          `model = "${r.model}"`,
          ...(r.remoteCompactAt ? [`model_auto_compact_token_limit = ${r.remoteCompactAt}`] : []),
          ...(r.contextWindow ? [`model_context_window = ${r.contextWindow}`] : []),
          `model_provider = "gateway"`,
          `check_for_update_on_startup = false`,
          `approval_policy = "never"`,
          `sandbox_mode = "workspace-write"`,
          `[model_providers.gateway]`,
          `name = "${r.remoteCompactAt ? "OpenAI" : "Gateway"}"`,
          `base_url = "${r.gateway}/v1"`,
          `env_key = "GATEWAY_API_KEY"`,
          `wire_api = "responses"`,
          `request_max_retries = ${r.retries ?? 0}`,
          `stream_max_retries = ${r.retries ?? 0}`,
          ...(r.websockets ? [`supports_websockets = true`] : []),
          // Unknown (gateway) model ids get Codex's fallback tool set, without apply_patch.
          // (apply_patch comes with model ids Codex knows, see agent-config.ts.)
          // Features that reach chatgpt.com / github.com (plugins, apps, updates) are off.
          `[features]`,
          ...["plugins", "remote_plugin", "plugin_sharing", "apps", "in_app_updates", "skill_mcp_dependency_install", "unbounded_connection_retries"].map((f) => `${f} = false`),
          `[analytics]`,
          `enabled = false`,
          `[feedback]`,
          `enabled = false`,
          "",
        ].join("\n"),
      );
      Object.assign(env, { CODEX_HOME: codexHome, GATEWAY_API_KEY: r.key });
      return {
        cmd: path.join(BIN, "codex"),
        args: ["exec", "--skip-git-repo-check", "--ephemeral", "--sandbox", "workspace-write", "--color", "never", "-C", r.workdir, r.prompt],
        env,
      };
    }
    case "gemini":
      // geminicli.com/docs/reference/configuration: user settings in ~/.gemini/settings.json.
      write(
        path.join(r.home, ".gemini/settings.json"),
        JSON.stringify({
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
          ide: { enabled: false },
        }),
      );
      Object.assign(env, {
        GEMINI_API_KEY: r.key,
        GOOGLE_GEMINI_BASE_URL: r.gateway,
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      });
      return { cmd: path.join(BIN, "gemini"), args: ["-p", r.prompt, "-m", r.model, "--approval-mode", "yolo", "--output-format", "text"], env };
    case "opencode":
      // opencode.ai/docs/config, /docs/providers: a custom OpenAI-compatible provider.
      Object.assign(env, {
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          $schema: "https://opencode.ai/config.json",
          autoupdate: false,
          share: "disabled",
          snapshot: false,
          model: `gateway/${r.model}`,
          small_model: `gateway/${r.model}`,
          permission: { edit: "allow", bash: "deny", webfetch: "deny" },
          provider: {
            gateway: {
              npm: "@ai-sdk/openai-compatible",
              name: "Gateway",
              options: { baseURL: `${r.gateway}/v1`, apiKey: r.key },
              // Image input declared: opencode otherwise replaces a tool's image with an error text.
              models: { [r.model]: { name: r.model, tool_call: true, attachment: true, modalities: { input: ["text", "image"], output: ["text"] } } },
            },
          },
        }),
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        // opencode installs @opencode-ai/plugin into its config folder in the background (not
        // switchable): its registry is a closed loopback port, so it fails at once, locally.
        npm_config_registry: "http://127.0.0.1:9/",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
        OPENCODE_DISABLE_PROJECT_CONFIG: "1",
      });
      return { cmd: path.join(BIN, "opencode"), args: ["run", "--model", `gateway/${r.model}`, r.prompt], env };
  }
}

export function runCli(r: CliRun): Promise<CliResult> {
  const { cmd, args, env } = command(r);
  const started = Date.now();
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { cwd: r.workdir, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    // Kill the CLI's whole process group (codex and gemini start helpers).
    const kill = () => {
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, r.timeoutMs);
    r.signal?.addEventListener("abort", kill, { once: true });
    proc.on("close", (code) => {
      clearTimeout(timer);
      r.signal?.removeEventListener("abort", kill);
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {}
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}
