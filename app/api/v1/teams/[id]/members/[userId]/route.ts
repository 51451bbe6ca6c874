import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { removeTeamMember } from "@/server/teams/team-service";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string; userId: string }> }) => {
  const { user } = await requireAdmin(request);
  const { id, userId } = await params;
  return NextResponse.json({ team: await removeTeamMember(user, id, userId) });
});
