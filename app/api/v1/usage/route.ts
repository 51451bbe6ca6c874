import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { loadUsageReport, parseUsageParams } from "@/server/history/usage-service";

export const dynamic = "force-dynamic";

/** The usage report of a range: the whole fleet for admins, one's own bookings for members. */
export const GET = apiHandler(async (request) => {
  const viewer = await requireUser(request);
  const now = Date.now();
  const params = parseUsageParams(new URL(request.url).searchParams, now);
  return NextResponse.json(await loadUsageReport(viewer, params, now));
});
