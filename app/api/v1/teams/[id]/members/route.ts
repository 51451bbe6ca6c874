import { NextResponse } from "next/server";
import { teamMemberSchema } from "@/lib/domain/team-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { addTeamMember } from "@/server/teams/team-service";

export const dynamic = "force-dynamic";

/** Adds a person (`{"username", "lead"?, "accounting"?}`), or changes their flags in this team. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const input = teamMemberSchema.parse(await readJson(request));
  return NextResponse.json({ team: await addTeamMember(user, (await params).id, input) });
});
