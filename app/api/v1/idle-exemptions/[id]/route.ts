import { NextResponse } from "next/server";
import { idleExemptionIdSchema } from "@/lib/domain/idle-exemption-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { removeIdleExemption } from "@/server/idle-release/idle-exemptions";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const id = idleExemptionIdSchema.parse((await params).id);
  await removeIdleExemption(user, id);
  return new NextResponse(null, { status: 204 });
});
