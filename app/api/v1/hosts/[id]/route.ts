import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { removeHost } from "@/server/hosts/host-registry";
import { runtime } from "@/server/main/runtime";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  const host = await removeHost((await params).id);
  runtime().disconnectAgents(host.id);
  runtime().fleet.removeHost(host.id);
  return new NextResponse(null, { status: 204 });
});
