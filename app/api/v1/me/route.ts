import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  const principal = await requireUser(request);
  return NextResponse.json({ user: principal.user, via: principal.via });
});
