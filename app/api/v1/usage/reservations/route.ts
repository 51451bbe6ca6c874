import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { efficiencyQuerySchema, bookingEfficiencyFor } from "@/server/history/booking-efficiency";

export const dynamic = "force-dynamic";

/** `?ids=a,b,c`: mean utilization during each booking (one's own; any for an admin). */
export const GET = apiHandler(async (request) => {
  const viewer = await requireUser(request);
  const { ids } = efficiencyQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return NextResponse.json({ efficiency: await bookingEfficiencyFor(viewer.user, ids) });
});
