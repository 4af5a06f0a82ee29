import { getDb } from "@/db/client";
import { checkOrigin } from "@/lib/auth/origin";
import { sendWelcomeVerification } from "@/lib/auth/email-links";
import { signUp, signUpSchema } from "@/lib/console/signup";
import { AppError, consoleRequestId, errorResponse } from "@/lib/console/errors";
import { readBody } from "@/lib/console/route";
import { logger } from "@/lib/logger";
import { requestClientAddress } from "@/lib/net/request-address";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Creates a user and account; the page then signs in through next-auth's credentials flow. */
export async function POST(req: Request): Promise<Response> {
  const requestId = consoleRequestId();
  try {
    if (!checkOrigin(req.method, req.headers).ok) throw new AppError("cross_origin", "Cross-site request refused.");
    const input = await readBody(req, signUpSchema);
    const db = await getDb();
    const user = await signUp(db, input, requestClientAddress(req.headers));
    void sendWelcomeVerification(db, user); // never fails or delays the sign-up
    return Response.json({ user: { id: user.id, email: user.email, role: user.role } }, { status: 201 });
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err, requestId);
    logger().error({ err, requestId }, "signup failed");
    return errorResponse(new AppError("internal_error", `Something went wrong (request ${requestId}).`), requestId);
  }
}
