import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { rotateHostToken } from "@/server/hosts/host-registry";
import { runtime } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

/** A new agent token; the old one stops working and its connected agent is dropped. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  const { host, token } = await rotateHostToken((await params).id);
  runtime().disconnectAgents(host.id);
  return NextResponse.json({ host, token });
});
