import { NextResponse } from "next/server";
import { teamUpdateSchema } from "@/lib/domain/team-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { deleteTeam, updateTeam } from "@/server/teams/team-service";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Renames, reweighs or sets the limits of a team: `{"limits": {"maxGpus": 16, …}}` (null clears a limit). */
export const PATCH = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireAdmin(request);
  const input = teamUpdateSchema.parse(await readJson(request));
  return NextResponse.json({ team: await updateTeam(user, (await params).id, input) });
});

export const DELETE = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireAdmin(request);
  await deleteTeam(user, (await params).id);
  return new NextResponse(null, { status: 204 });
});
