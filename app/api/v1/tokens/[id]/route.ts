import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { revokePersonalToken } from "@/server/auth/tokens";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const principal = await requireUser(request);
  await revokePersonalToken((await params).id, principal);
  return new NextResponse(null, { status: 204 });
});
