import { NextResponse } from "next/server";
import { personLimitsSchema } from "@/lib/domain/team-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { setPersonLimits } from "@/server/teams/team-service";

export const dynamic = "force-dynamic";

/** A person's own limits, which override their team's for them: `{"limits": {"maxGpus": 2}}` (null clears one). */
export const PUT = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const input = personLimitsSchema.parse(await readJson(request));
  return NextResponse.json({ limits: await setPersonLimits(user, (await params).id, input.limits) });
});
