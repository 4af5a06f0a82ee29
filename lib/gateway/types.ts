/**
 * The contract between the gateway entry (lib/gateway/entry.ts) and the capability route files
 * (lib/gateway/routes/*.ts). A route file exports a RouteDef[]; the entry matches the path,
 * authenticates, applies the rate limit and hands the handler a RouteContext.
 */
import type { ApiError, ErrorStyle } from "./errors";
import type { GatewayRequest, GatewayResponse } from "./http";
import type { Principal } from "../keys/principal";
import type { Result } from "../result";

export type { Principal };

/** Which credential transports a route accepts besides `Authorization: Bearer`. */
export interface AuthTransports {
  xApiKey?: boolean;
  queryKey?: boolean;
  googApiKey?: boolean;
}

export interface RouteContext {
  req: GatewayRequest;
  requestId: string;
  /** performance.now() when the request arrived, for latency and TTFT. */
  startedAt: number;
  /** Named `{param}` segments of the route pattern, URL-decoded. */
  params: Record<string, string>;
  principal: Principal;
  /** Reads the body with the route's size limit and parses JSON; errors are ready-made 400/413 values. */
  readJson(): Promise<Result<unknown, ApiError>>;
  /** Reads the raw body with the route's size limit. */
  readBody(): Promise<Result<Buffer, ApiError>>;
  /** Renders an ApiError in this route's error style. */
  error(err: ApiError): GatewayResponse;
  /** Filled by handlers for logs and metrics: the public model id once known. */
  /** `span`: the request's trace span, present only when tracing is on (lib/tracing.ts). */
  /** `headers`: put on the reply whatever its status (a deprecated model's notice, decision 0051). */
  observe: { model?: string; span?: import("@opentelemetry/api").Span; headers?: Record<string, string> };
  /**
   * The process outlives the response (the custom server), so a settlement may commit just
   * after the reply; false where a runtime may freeze the process once it has answered.
   */
  settleAfterReply: boolean;
}

export interface RouteDef {
  method: "GET" | "POST" | "DELETE";
  /** Path pattern; `{name}` matches one path segment or part of one: `/v1beta/models/{model}:generateContent`. */
  path: string;
  /** false for routes that need no key (signed media URLs). Default true. */
  auth?: boolean;
  transports?: AuthTransports;
  /** Body size limit in bytes (or read from the environment per request). Default 4 MiB. */
  bodyLimit?: number | (() => number);
  /** The error shape; a function where one path serves several vendors' clients (`/v1/files`), so even a bad key's 401 is in the caller's shape. */
  errorStyle?: ErrorStyle | ((req: GatewayRequest) => ErrorStyle);
  handler(ctx: RouteContext): Promise<GatewayResponse>;
}
