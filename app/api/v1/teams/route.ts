import { NextResponse } from "next/server";
import { teamCreateSchema } from "@/lib/domain/team-schema";
import { requireAdmin, requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createTeam, listTeams } from "@/server/teams/team-service";

export const dynamic = "force-dynamic";

/** Every team with its members, limits and share: the lab's rules are no secret (the form and the queue name them). */
export const GET = apiHandler(async (request) => {
  await requireUser(request);
  return NextResponse.json({ teams: await listTeams() });
});

export const POST = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const input = teamCreateSchema.parse(await readJson(request));
  const team = await createTeam(user, input);
  return NextResponse.json({ team }, { status: 201, headers: { Location: `/api/v1/teams/${team.id}` } });
});
