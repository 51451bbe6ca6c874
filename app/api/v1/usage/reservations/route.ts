import { NextResponse } from "next/server";
import { z } from "zod";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { reservationEfficiencyFor } from "@/server/history/reservation-efficiency";

export const dynamic = "force-dynamic";

const querySchema = z.object({
  ids: z
    .string()
    .max(20_000)
    .transform((text) => text.split(",").map((id) => id.trim()).filter(Boolean))
    .pipe(z.array(z.string().max(64)).min(1).max(500)),
});

/** `?ids=a,b,c`: mean utilization during each booking (one's own; any for an admin). */
export const GET = apiHandler(async (request) => {
  const viewer = await requireUser(request);
  const { ids } = querySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return NextResponse.json({ efficiency: await reservationEfficiencyFor(viewer.user, ids) });
});
