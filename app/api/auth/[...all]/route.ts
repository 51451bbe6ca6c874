import { auth } from "@/server/auth/better-auth";
import { authRequest, withoutSessionToken } from "@/server/auth/auth-endpoints";
import { errorResponse } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

// better-auth answers sign-in, sign-out and session requests under /api/auth/*; everything
// else it could do (e-mail sign-in, update-user, impersonation…) is closed here.
// Created on first request, not at build time (it reads the configuration and the database).
async function handle(request: Request): Promise<Response> {
  try {
    const { forwarded, secure } = await authRequest(request);
    return await withoutSessionToken(forwarded, await auth(secure).handler(forwarded));
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = handle;
export const POST = handle;
