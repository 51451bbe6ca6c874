import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { revokeDisplay } from "@/server/auth/tokens";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  await revokeDisplay((await params).id);
  return new NextResponse(null, { status: 204 });
});
