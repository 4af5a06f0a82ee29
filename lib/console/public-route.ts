/**
 * Console routes that work signed out (sign-up, password reset, email links): same-site Origin
 * check on POST, the client address for rate limits, errors rendered as AppError bodies.
 */
import { checkOrigin } from "../auth/origin";
import { logger } from "../logger";
import { requestClientAddress } from "../net/request-address";
import { AppError, consoleRequestId, errorResponse } from "./errors";

export function publicRoute(handler: (ctx: { req: Request; ip: string; requestId: string }) => Promise<unknown>, status = 200) {
  return async (req: Request): Promise<Response> => {
    const requestId = consoleRequestId();
    try {
      if (!checkOrigin(req.method, req.headers).ok) throw new AppError("cross_origin", "Cross-site request refused.");
      const result = await handler({ req, ip: requestClientAddress(req.headers), requestId });
      return Response.json(result ?? { ok: true }, { status, headers: { "cache-control": "no-store", "x-request-id": requestId } });
    } catch (err) {
      if (err instanceof AppError) {
        if (err.opts.cause) logger().warn({ err: err.opts.cause, requestId, code: err.code }, "console route error");
        return errorResponse(err, requestId);
      }
      logger().error({ err, requestId, path: new URL(req.url).pathname }, "console route failed");
      return errorResponse(new AppError("internal_error", `Something went wrong (request ${requestId}).`), requestId);
    }
  };
}
