import { NextResponse } from "next/server";
import { alertQuerySchema } from "@/lib/domain/alerts";
import { searchParamsObject } from "@/lib/domain/booking-schema";
import { listAlerts } from "@/server/alerts/alert-queries";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/**
 * Alerts, newest first: `?state=open` (default) or `all`, with `kind`,
 * `hostId`, `gpuUuid`, `since`, `mine=1` (admins), `limit` and `cursor`.
 * Members get the alerts that involve them; admins get all.
 */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const query = alertQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json(await listAlerts(user, query));
});
