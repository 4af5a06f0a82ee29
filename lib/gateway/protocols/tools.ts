/** Tool shapes shared by the parsers: hosted tools by vendor type, namespace flattening. */
import type { HostedTool } from "../canonical";

/** A namespaced member's flat name (what non-Responses upstreams see and call). */
export function namespacedName(ns: string, member: string): string {
  return `${ns}__${member}`;
}

/** Hosted tools of the Responses API (and Chat's web_search_options) by type. */
export function hostedFromOpenAIType(type: string): HostedTool["type"] | null {
  if (type === "web_search" || type.startsWith("web_search_preview") || type.startsWith("web_search_")) return "web_search";
  if (type === "code_interpreter") return "code_execution";
  if (type === "tool_search") return "tool_search";
  if (["file_search", "image_generation", "computer_use_preview", "computer_use", "mcp", "local_shell", "shell", "apply_patch"].includes(type)) return "other";
  return null;
}

/** Anthropic's server tools; client tools with an Anthropic-defined schema (bash, editor) are null. */
export function hostedFromAnthropicType(type: string): HostedTool["type"] | null {
  if (type.startsWith("web_search_")) return "web_search";
  if (type.startsWith("code_execution_")) return "code_execution";
  if (type.startsWith("web_fetch_")) return "url_context";
  if (type.startsWith("tool_search_tool")) return "tool_search";
  if (type.startsWith("mcp_toolset")) return "other";
  return null;
}
