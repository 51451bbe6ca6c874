import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { changeOwnPassword } from "@/server/auth/passwords";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** Changes the signed-in person's password (the current one required); their other sessions end, this one goes on with a new cookie. */
export const POST = apiHandler(async (request) => {
  const principal = await requireUser(request);
  const authHeaders = await changeOwnPassword(principal, request.headers, await readJson(request));
  const response = NextResponse.json({ changed: true, otherSessionsEnded: true });
  for (const cookie of authHeaders.getSetCookie()) response.headers.append("set-cookie", cookie);
  return response;
});
